// Provider adapters land here (OpenAI, Anthropic, OpenAI-compatible); see the package README.
export {};
