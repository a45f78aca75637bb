package httpapi

import (
	"container/list"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// answer is a rendered success: what wrap writes, and what the cache keeps.
type answer struct {
	body        []byte
	contentType string
	pinned      bool
	pooled      bool   // body is a BodyBuffer, released once written (never a cached answer)
	etag        string // pinned answers only: a strong validator of the body
	// version is the API's Version when the answer was computed (unpinned answers are served
	// from the cache only while it is unchanged, e.g. the same indexed height).
	version int64
	// route is the route that computed a cached answer (nil until it is cached).
	route *cachedRoute
	// The header values write sends, computed once per answer (see headerValue).
	hContentType, hETag, hContentLength []string
}

func (a *answer) headers() {
	a.hContentType = jsonContentType
	if a.contentType != "application/json" {
		a.hContentType = headerValue(a.contentType)
	}
	if a.etag != "" {
		a.hETag = headerValue(a.etag)
	}
	a.hContentLength = headerValue(strconv.Itoa(len(a.body)))
}

// etagOf is a strong ETag: a digest of the bytes, so equal bodies share it across replicas
// and restarts.
func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`
}

// etagMatches reports whether an If-None-Match header names etag (or is "*"). Weak
// comparison, as RFC 9110 asks for If-None-Match.
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// entryOverhead approximates what an entry costs beyond its key and body (list element, map
// slot, answer struct), so many tiny answers cannot exceed the bound either.
const entryOverhead = 160

// Cache keeps rendered answers of cacheable routes, bounded in bytes (least recently used go
// first). Pinned answers are kept until evicted: nothing they hold can change. Other answers
// are served only while the API's Version is the one they were computed at. One Cache may be
// shared by several APIs of one process only if their paths differ.
type Cache struct {
	mu    sync.Mutex
	max   int64
	bytes int64
	ll    *list.List // front: most recently used
	items map[string]*list.Element
	// gen counts Clears. An answer is put only under the generation read before its data
	// was: one computed from data a Clear declared gone is dropped, not kept past the Clear.
	// It moves only under mu (so put's check and Clear exclude each other) but is read
	// without it: every cacheable request reads it, and that read must not take the lock.
	gen atomic.Uint64
}

type cacheEntry struct {
	key string
	a   *answer
}

// NewCache returns a cache holding at most maxBytes (keys, bodies and a fixed overhead per
// entry); maxBytes <= 0 returns nil, which caches nothing.
func NewCache(maxBytes int64) *Cache {
	if maxBytes <= 0 {
		return nil
	}
	return &Cache{max: maxBytes, ll: list.New(), items: map[string]*list.Element{}}
}

func entrySize(key string, a *answer) int64 {
	return int64(len(key)+len(a.body)+len(a.contentType)+len(a.etag)) + entryOverhead
}

// get looks key up; the key is bytes so that a lookup needs no string copy of it.
func (c *Cache) get(key []byte) (*answer, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[string(key)]
	if !ok {
		return nil, false
	}
	c.ll.MoveToFront(el)
	return el.Value.(*cacheEntry).a, true
}

// generation is the count of Clears so far, read before an answer's data is: put and offer
// keep the answer only while it is unchanged.
func (c *Cache) generation() uint64 {
	if c == nil {
		return 0
	}
	return c.gen.Load()
}

// put keeps a under key unless a Clear came after gen was read; it reports whether a was kept.
func (c *Cache) put(key string, a *answer, gen uint64) bool {
	if c == nil {
		return false
	}
	size := entrySize(key, a)
	if size > c.max/8 {
		return false // one huge answer must not flush everything else
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen.Load() != gen {
		return false // computed before a Clear: its data may be gone
	}
	if el, ok := c.items[key]; ok {
		old := el.Value.(*cacheEntry)
		c.bytes += size - entrySize(key, old.a)
		old.a = a
		c.ll.MoveToFront(el)
	} else {
		c.items[key] = c.ll.PushFront(&cacheEntry{key: key, a: a})
		c.bytes += size
	}
	for c.bytes > c.max {
		el := c.ll.Back()
		e := el.Value.(*cacheEntry)
		c.ll.Remove(el)
		delete(c.items, e.key)
		c.bytes -= entrySize(e.key, e.a)
	}
	return true
}

// Clear drops every answer, pinned ones too: the data they were rendered from is gone (the
// indexer's store was dropped to index another chain).
func (c *Cache) Clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ll.Init()
	clear(c.items)
	c.bytes = 0
	c.gen.Add(1)
}

// Bytes is what the cache holds now, by its own accounting (always at most the bound).
func (c *Cache) Bytes() int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// Len is the number of answers held.
func (c *Cache) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}
