package observe

import (
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

func TestJobIDFromKey(t *testing.T) {
	for key, want := range map[string]string{
		"bull:q:j-1": "j-1", "bull:q:42": "42", "bull:q:wait": "", "bull:q:events": "", "bull:q:meta": "",
		"bull:q:j-1:logs": "", "bull:other:j-1": "", "bull:q:": "", "bull:q:de:x": "",
	} {
		id, ok := jobIDFromKey("bull:q:", key)
		require.Equal(t, want != "", ok, key)
		require.Equal(t, want, id, key)
	}
}

func TestAddFlags(t *testing.T) {
	require.Equal(t, "Kghxe", addFlags("", "Kghxe"))
	require.Equal(t, "AKEn", addFlags("AKE", "Kghxen"), "A covers g, h, x and e")
	require.Equal(t, "Eg$Khxe", addFlags("Eg$", "Kghxe"), "classes already set are kept")
}

func TestGlobEscape(t *testing.T) {
	require.Equal(t, `b\*u\?l\[l\]\\:q:`, globEscape(`b*u?l[l]\:q:`))
}

func TestStreamIDOrder(t *testing.T) {
	require.True(t, newer("2-0", "1-9"))
	require.True(t, newer("1-10", "1-9"), "numeric, not text, order")
	require.False(t, newer("1-1", "1-1"))
	require.True(t, newer("1-0", "0"))
	require.False(t, newer("0", "0-0"))
	require.Equal(t, int64(1700000000123), parseStreamID("1700000000123-4").time().UnixMilli())
}

func TestClassifyWithNewEvents(t *testing.T) {
	o := &RedisObserver{newEvents: true, created: map[string]bool{}, known: map[string]bool{}}
	var got []string
	for _, ev := range []string{"new", "hset", "hset", "hincrby", "hdel", "expire", "del", "new", "rename_to", "hset"} {
		got = append(got, o.classify("k", ev))
	}
	require.Equal(t, []string{"new", "", "hset", "", "hdel", "", "del", "new", "", "hset"}, got,
		"the creating write is folded into new; a later write after another event is not")
}

func TestClassifyWithoutNewEvents(t *testing.T) {
	o := &RedisObserver{created: map[string]bool{}, known: map[string]bool{"old": true}}
	require.Equal(t, "hset", o.classify("old", "hset"), "a key that existed at Start is not new")
	require.Equal(t, "new", o.classify("k", "hset"), "the first write to an unknown key creates it")
	require.Equal(t, "hset", o.classify("k", "hset"))
	require.Equal(t, "del", o.classify("k", "expired"))
	require.Equal(t, "new", o.classify("k", "hincrby"))
	require.Equal(t, "", o.classify("k", "hincrby"))
}

func TestStreamCheck(t *testing.T) {
	st := &streamState{key: "s", lastID: "5-0", seen: 5}
	info := func(added, length int64, last string) *redis.XInfoStream {
		return &redis.XInfoStream{EntriesAdded: added, Length: length, LastGeneratedID: last, MaxDeletedEntryID: "0-0"}
	}
	require.Empty(t, st.check(info(5, 5, "5-0"), false, true, "5-0"), "all read")
	require.Empty(t, st.check(info(7, 2, "7-0"), false, false, "5-0"), "a read that hit COUNT cannot tell")
	require.Contains(t, st.check(info(7, 2, "7-0"), false, true, "5-0"), "2 entries")
	require.Equal(t, int64(7), st.seen, "a loss is reported once")
	require.Empty(t, st.check(info(7, 0, "7-0"), false, true, "5-0"))

	require.Contains(t, st.check(nil, true, true, "5-0"), "is gone")
	require.Empty(t, st.check(nil, true, true, "5-0"), "reported once")
	st.lastID, st.seen = "9-0", 1 // the sync's read found the recreated stream's entry
	require.Empty(t, st.check(info(1, 1, "9-0"), false, true, "5-0"), "recreated newer, read from the old position")

	st = &streamState{key: "s", lastID: "5-0", seen: 5}
	require.Contains(t, st.check(info(2, 2, "3-0"), false, true, "5-0"), "went back")
	require.Equal(t, "0", st.lastID, "re-read the recreated stream from the start")

	st = &streamState{key: "s", lastID: "5-0", seen: 5}
	require.Contains(t, st.check(info(3, 3, "9-0"), false, true, "5-0"), "recreated")

	st = &streamState{key: "s", lastID: "5-0", seen: 5}
	st.deleted.Store(true)
	require.Contains(t, st.check(info(1, 1, "9-0"), false, true, "5-0"), "deleted and recreated")

	old := &redis.XInfoStream{Length: 2, LastGeneratedID: "9-0", FirstEntry: redis.XMessage{ID: "8-0"}}
	st = &streamState{key: "s", lastID: "9-0", seen: 5}
	require.Contains(t, st.check(old, false, true, "5-0"), "may have been trimmed", "Redis before 7.0")
	require.Empty(t, st.check(old, false, true, "5-0"), "reported once")
}

func TestHeartbeatPayload(t *testing.T) {
	at := time.Date(2026, 11, 29, 10, 0, 0, 123456789, time.UTC)
	got, ok := heartbeatSent(heartbeatPrefix + strconv.FormatInt(at.UnixNano(), 10))
	require.True(t, ok)
	require.Equal(t, at, got)
	_, ok = heartbeatSent(flushToken)
	require.False(t, ok, "the flush PING is no heartbeat")
	_, ok = heartbeatSent(heartbeatPrefix + "soon")
	require.False(t, ok)
}
