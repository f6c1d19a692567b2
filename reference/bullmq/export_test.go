package bullmq

// AddScript exposes the Lua source to the external tests, which call it
// directly to prove its own refusal of illegal ids.
var AddScript = addScript
