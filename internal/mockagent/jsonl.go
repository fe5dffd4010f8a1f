package mockagent

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// readLog returns every record of the JSON-lines log name in stateDir,
// oldest first, read under the state dir's lock. A torn line (an agent
// killed mid-write) is skipped; a missing log is empty.
func readLog[T any](stateDir, name string) ([]T, error) {
	st, err := openStore(stateDir)
	if err != nil {
		return nil, err
	}
	var out []T
	err = st.locked(func() error {
		f, err := os.Open(filepath.Join(stateDir, name))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			var r T
			if json.Unmarshal(sc.Bytes(), &r) == nil {
				out = append(out, r)
			}
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	})
	return out, err
}
