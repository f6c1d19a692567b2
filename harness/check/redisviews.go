package check

import (
	"sort"

	"github.com/outboxchaos/outboxchaos/harness/history"
)

// finalPresence is where the final scan found the BullMQ jobs of one
// ai_jobs row.
type finalPresence struct {
	lists map[bullKey][]string // BullMQ job -> the lists and sets holding it
	bulls map[bullKey]bool     // every BullMQ job matched, listed or hashed
}

// indexRedis files the stream entries, key notes and the final scan under
// the ai_jobs rows they are about (matched as creations are).
func (ix *index) indexRedis() {
	ix.streamOf = map[string][]history.StreamEntry{}
	ix.keysOf = map[string][]history.KeyNote{}
	ix.finalOf = map[string]*finalPresence{}
	dataOf := ix.creations.dataOf
	for _, e := range ix.run.Stream {
		for _, j := range matchJobs(ix, e.JobID, dataOf[bullKey{e.Queue, e.JobID}]) {
			ix.streamOf[j] = append(ix.streamOf[j], e)
		}
	}
	for _, n := range ix.run.Keys {
		data := noteData(n)
		if data == "" {
			data = dataOf[bullKey{n.Queue, n.JobID}]
		}
		for _, j := range matchJobs(ix, n.JobID, data) {
			ix.keysOf[j] = append(ix.keysOf[j], n)
		}
	}
	for _, q := range sortedKeys(ix.run.Final.Queues) {
		scan := ix.run.Final.Queues[q]
		for _, list := range sortedKeys(scan.Lists) {
			for _, id := range scan.Lists[list] {
				k := bullKey{q, id}
				for _, j := range matchJobs(ix, id, dataOf[k]) {
					p := ix.presence(j)
					p.lists[k] = append(p.lists[k], list)
					p.bulls[k] = true
				}
			}
		}
		for id, h := range scan.Jobs {
			for _, j := range matchJobs(ix, id, hashData(h)) {
				ix.presence(j).bulls[bullKey{q, id}] = true
			}
		}
	}
}

func (ix *index) presence(job string) *finalPresence {
	p := ix.finalOf[job]
	if p == nil {
		p = &finalPresence{lists: map[bullKey][]string{}, bulls: map[bullKey]bool{}}
		ix.finalOf[job] = p
	}
	return p
}

func sortedBulls[V any](m map[bullKey]V) []bullKey {
	keys := make([]bullKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortBullKeys(keys)
	return keys
}

// sortBullKeys orders keys by queue, then BullMQ id.
func sortBullKeys(keys []bullKey) {
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Queue != keys[j].Queue {
			return keys[i].Queue < keys[j].Queue
		}
		return keys[i].ID < keys[j].ID
	})
}
