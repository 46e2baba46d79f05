package mqtt

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"setmatch/config"
)

// TestFilesChanged: Files tells a password or certificate file rewritten
// in place since it was read, and one that can no longer be read; a key
// that names another file now, or a file it did not read, is not its to
// report.
func TestFilesChanged(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	c := config.MQTT{Username: "u", PasswordFile: write("pw", "old\n"), CAFile: write("ca.pem", "ca")}
	f := ReadFiles(c)
	if got := f.Changed(c); got != nil {
		t.Errorf("nothing rewritten: changed %v", got)
	}
	write("pw", "new\n")
	if got := f.Changed(c); !slices.Equal(got, []string{"password_file"}) {
		t.Errorf("the password rewritten: changed %v", got)
	}
	if err := os.Remove(c.CAFile); err != nil {
		t.Fatal(err)
	}
	if got := f.Changed(c); !slices.Equal(got, []string{"ca_file", "password_file"}) {
		t.Errorf("the CA file removed too: changed %v", got)
	}
	other := c
	other.PasswordFile, other.CAFile, other.CertFile = write("pw2", "x"), "", write("cert.pem", "c")
	if got := f.Changed(other); got != nil {
		t.Errorf("other files named: changed %v, want none (config.ReloadOver says so)", got)
	}
}
