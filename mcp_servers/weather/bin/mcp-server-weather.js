#!/usr/bin/env node
// The published command. It exists before the first build, so installing the workspace creates its
// link without a warning; the server itself is dist/index.js.
import '../dist/index.js';
