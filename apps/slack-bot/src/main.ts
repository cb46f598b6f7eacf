// The Slack app is not built yet: see README.md for what runs today.
process.stderr.write('ai-assistant: the Slack bot is not implemented yet; try `pnpm chat` once it lands.\n');
process.exitCode = 1;
