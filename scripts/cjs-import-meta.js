// The CommonJS program's `import.meta.url` (scripts/bundle.mjs): its own file's URL.
export const importMetaUrl = require("node:url").pathToFileURL(__filename).href
