// Package sink describes a sink other than BullMQ that a dispatcher
// publishes to, and how a message is read out of it: the one definition the
// observer (harness/observe), the consumer (harness/workload) and the final
// scan share.
//
// # Kinds
//
//   - redis-stream (history.SinkStream): one stream per queue or topic, its
//     key the name as given (no prefix). Each XADD is one message.
//   - redis-list (history.SinkList): one list per queue or topic, its key
//     the name as given. Each LPUSH (or RPUSH, Config.Push) is one message,
//     one element, usually JSON. The harness moves every element into its
//     own list Archive(key) ("oc:archive:<key>") as it is pushed, so the
//     element is recorded once and nothing is lost.
//
// # Reading a message
//
// A stream entry's fields are read as one JSON object of strings. Its
// message id is the value of the field Config.MessageID names ("" when not
// configured or absent). Its job id (history.Append.DataJobID) is the
// payload's "jobId", found anywhere in the JSON of the field Config.Payload
// names; without a payload field, anywhere in the entry (a field named
// jobId included).
//
// A list element is decoded as JSON. Its message id is the value of its
// top-level key Config.MessageID; its job id is the "jobId" found anywhere
// in the value of its key Config.Payload, or in the whole element when no
// payload key is configured. An element that is not JSON carries neither.
//
// "Anywhere" is a breadth-first search to depth MaxDepth: the shallowest
// jobId wins, and among keys at one depth the first in sorted order. A
// string value that holds a JSON object or array (an envelope carrying its
// payload as text) is decoded and searched too, counting one level. A
// string or number jobId counts; a number reads as written; anything else
// is no jobId.
package sink
