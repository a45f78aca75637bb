package engine

import (
	"sort"
	"strings"
)

// version is one value of a key written at a height; nil value means deleted.
type version struct {
	height int64
	value  []byte
}

// store is the chain's versioned key-value state, all modules in one keyspace
// ("<module>/<key>"). Guarded by the chain's mutex.
type store struct {
	keys     []string // sorted
	versions map[string][]version
}

func newStore() *store { return &store{versions: map[string][]version{}} }

func (s *store) get(key string, height int64) ([]byte, bool) {
	vs := s.versions[key]
	// newest first: the latest version at or below height wins
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i].height <= height {
			if vs[i].value == nil {
				return nil, false
			}
			return vs[i].value, true
		}
	}
	return nil, false
}

func (s *store) set(key string, height int64, value []byte) {
	vs, ok := s.versions[key]
	if !ok {
		i := sort.SearchStrings(s.keys, key)
		s.keys = append(s.keys, "")
		copy(s.keys[i+1:], s.keys[i:])
		s.keys[i] = key
	}
	if n := len(vs); n > 0 && vs[n-1].height == height {
		vs[n-1].value = value
	} else {
		vs = append(vs, version{height: height, value: value})
	}
	s.versions[key] = vs
}

func (s *store) iterate(prefix string, height int64, fn func(key string, value []byte) bool) {
	i := sort.SearchStrings(s.keys, prefix)
	for ; i < len(s.keys) && strings.HasPrefix(s.keys[i], prefix); i++ {
		if v, ok := s.get(s.keys[i], height); ok {
			if !fn(s.keys[i], v) {
				return
			}
		}
	}
}

// overlay buffers the writes of one transaction (or one part of it) on top of a parent view,
// so a failed message rolls back by dropping the overlay.
type overlay struct {
	parent view
	writes map[string][]byte // nil value = delete
	order  []string
}

// view is a readable keyspace.
type view interface {
	get(key string) ([]byte, bool)
	iterate(prefix string, fn func(key string, value []byte) bool)
}

type heightView struct {
	s      *store
	height int64
}

func (h heightView) get(key string) ([]byte, bool) { return h.s.get(key, h.height) }
func (h heightView) iterate(prefix string, fn func(string, []byte) bool) {
	h.s.iterate(prefix, h.height, fn)
}

func newOverlay(parent view) *overlay {
	return &overlay{parent: parent, writes: map[string][]byte{}}
}

func (o *overlay) get(key string) ([]byte, bool) {
	if v, ok := o.writes[key]; ok {
		return v, v != nil
	}
	return o.parent.get(key)
}

func (o *overlay) set(key string, value []byte) {
	if _, ok := o.writes[key]; !ok {
		o.order = append(o.order, key)
	}
	if value == nil {
		value = []byte{}
	}
	o.writes[key] = append([]byte(nil), value...)
}

func (o *overlay) del(key string) {
	if _, ok := o.writes[key]; !ok {
		o.order = append(o.order, key)
	}
	o.writes[key] = nil
}

func (o *overlay) iterate(prefix string, fn func(string, []byte) bool) {
	var own []string
	for _, k := range o.order {
		if strings.HasPrefix(k, prefix) {
			own = append(own, k)
		}
	}
	if len(own) == 0 {
		o.parent.iterate(prefix, fn)
		return
	}
	sort.Strings(own)
	stopped := false
	j := 0
	emitOwn := func(limit string, all bool) bool {
		for j < len(own) && (all || own[j] < limit) {
			k := own[j]
			j++
			if v := o.writes[k]; v != nil {
				if !fn(k, v) {
					return false
				}
			}
		}
		return true
	}
	o.parent.iterate(prefix, func(k string, v []byte) bool {
		if !emitOwn(k, false) {
			stopped = true
			return false
		}
		if _, shadowed := o.writes[k]; shadowed {
			if j < len(own) && own[j] == k {
				j++
				if w := o.writes[k]; w != nil && !fn(k, w) {
					stopped = true
					return false
				}
			}
			return true
		}
		if !fn(k, v) {
			stopped = true
			return false
		}
		return true
	})
	if !stopped {
		emitOwn("", true)
	}
}

// commitTo applies the overlay's writes to its parent overlay.
func (o *overlay) commitTo(p *overlay) {
	for _, k := range o.order {
		if v := o.writes[k]; v == nil {
			p.del(k)
		} else {
			p.set(k, v)
		}
	}
}

// moduleKV is a sim.KV namespaced to one module.
type moduleKV struct {
	o      *overlay
	prefix string
}

func (m moduleKV) Get(key string) ([]byte, bool) { return m.o.get(m.prefix + key) }
func (m moduleKV) Set(key string, value []byte)  { m.o.set(m.prefix+key, value) }
func (m moduleKV) Delete(key string)             { m.o.del(m.prefix + key) }
func (m moduleKV) Iterate(prefix string, fn func(key string, value []byte) bool) {
	m.o.iterate(m.prefix+prefix, func(k string, v []byte) bool { return fn(k[len(m.prefix):], v) })
}

// readKV is a read-only sim.KVReader namespaced to one module.
type readKV struct {
	v      view
	prefix string
}

func (m readKV) Get(key string) ([]byte, bool) { return m.v.get(m.prefix + key) }
func (m readKV) Iterate(prefix string, fn func(key string, value []byte) bool) {
	m.v.iterate(m.prefix+prefix, func(k string, v []byte) bool { return fn(k[len(m.prefix):], v) })
}
