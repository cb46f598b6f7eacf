// The Slack app is not built yet: see README.md for what runs today.
process.stderr.write('ai-assistant: the terminal chat is not implemented yet.\n');
process.exitCode = 1;
