package daemontest

// PID is the daemon's process id.
func (d *Daemon) PID() int { return d.cmd.Process.Pid }
