package mqtt

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"setmatch/config"
)

// TestFilesChanged: the Files FromConfig records tell a password file
// rewritten in place since it was read, and one that can no longer be
// read; a key that names another file now is not theirs to report
// (config.ReloadOver's).
func TestFilesChanged(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	c := config.MQTT{Broker: "tcp://127.0.0.1:1883", Topic: "site/door", ClientID: "door", Username: "u", PasswordFile: write("pw", "old\n")}
	o, err := FromConfig(c, "0.1.0", nil)
	if err != nil {
		t.Fatal(err)
	}
	f := o.Files
	if got := f.Changed(c); got != nil {
		t.Errorf("nothing rewritten: changed %v", got)
	}
	other := c
	other.PasswordFile = write("pw2", "x")
	write("pw", "new\n")
	if got := f.Changed(c); !slices.Equal(got, []string{"password_file"}) {
		t.Errorf("the password rewritten: changed %v", got)
	}
	if got := f.Changed(other); got != nil {
		t.Errorf("another file named: changed %v, want none", got)
	}
	if err := os.Remove(c.PasswordFile); err != nil {
		t.Fatal(err)
	}
	if got := f.Changed(c); !slices.Equal(got, []string{"password_file"}) {
		t.Errorf("the password file removed: changed %v", got)
	}
}
