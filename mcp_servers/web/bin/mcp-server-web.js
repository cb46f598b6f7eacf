#!/usr/bin/env node
// The published command; the server itself is dist/index.js.
import '../dist/index.js';
