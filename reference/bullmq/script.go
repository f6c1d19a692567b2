package bullmq

import (
	"crypto/sha1"
	_ "embed"
	"encoding/hex"
)

// addScript is the Lua add; doc.go describes its steps.
//
//go:embed add.lua
var addScript string

// addScriptSHA is the name EVALSHA knows addScript by.
var addScriptSHA = scriptSHA(addScript)

func scriptSHA(src string) string {
	sum := sha1.Sum([]byte(src))
	return hex.EncodeToString(sum[:])
}

// Outcome codes returned by add.lua.
const (
	replyAdded     = 1
	replyDuplicate = 2
	replyDeduped   = 3
)

// replyIllegalJobID prefixes add.lua's refusal of an illegal id.
const replyIllegalJobID = "ILLEGALJOBID"
