package ws

import "sync"

// hub maps subscription keys to the connections holding them. A key is the topic for market
// topics and "topic|application_id" for private ones, so a private frame can only reach the
// connections authenticated as its account.
type hub struct {
	mu   sync.RWMutex
	subs map[string]map[*conn]struct{}
}

func newHub() *hub { return &hub{subs: map[string]map[*conn]struct{}{}} }

func (h *hub) add(key string, c *conn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	set := h.subs[key]
	if set == nil {
		set = map[*conn]struct{}{}
		h.subs[key] = set
	}
	set[c] = struct{}{}
}

func (h *hub) remove(key string, c *conn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if set := h.subs[key]; set != nil {
		delete(set, c)
		if len(set) == 0 {
			delete(h.subs, key)
		}
	}
}

// has reports whether anyone holds key; publishers use it to skip encoding unread frames.
func (h *hub) has(key string) bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.subs[key]) > 0
}

// publish queues b on every connection holding key. b must not be modified afterwards.
func (h *hub) publish(key string, b []byte) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for c := range h.subs[key] {
		c.send(b)
	}
}

// count returns the number of subscriptions of key.
func (h *hub) count(key string) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.subs[key])
}

func privateKey(topic, applicationID string) string { return topic + "|" + applicationID }
