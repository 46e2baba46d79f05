package config

import "bytes"

// Parse, for tests, decodes one configuration held in memory over Default and
// validates it; name is used in errors and to resolve relative paths.
func Parse(name string, data []byte) (*Config, error) {
	l := newLoader()
	if err := l.apply(name, bytes.NewReader(data)); err != nil {
		return nil, err
	}
	if err := l.validate(); err != nil {
		return nil, err
	}
	return l.result(), nil
}
