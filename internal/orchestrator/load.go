package orchestrator

// Load is the daemon's agent load: agent processes alive now and turns
// waiting in line for one (Config.MaxAgents). The fleet advertises it.
func (s *Service) Load() (live, waiting int) {
	s.slots.mu.Lock()
	defer s.slots.mu.Unlock()
	return s.slots.live, len(s.slots.line)
}
