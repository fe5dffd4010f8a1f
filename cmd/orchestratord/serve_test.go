package main

import (
	"slices"
	"testing"
)

func TestAllowedHostsAddsTheListenName(t *testing.T) {
	for _, tc := range []struct {
		addr  string
		extra []string
		want  []string
	}{
		{"127.0.0.1:7420", nil, nil},
		{"[::1]:7420", []string{"box.lan"}, []string{"box.lan"}},
		{":7420", nil, nil},
		{"myhost:7420", []string{"*.example.com"}, []string{"*.example.com", "myhost"}},
	} {
		if got := allowedHosts(tc.addr, tc.extra); !slices.Equal(got, tc.want) {
			t.Errorf("allowedHosts(%q, %v) = %v, want %v", tc.addr, tc.extra, got, tc.want)
		}
	}
}
