package device

import "fmt"

// sameInputDim refuses, on reload, a model whose batches have another number
// of features than the running model's: the spool's writers make batches of
// one feature extractor, and every one of them would fail with the new
// model. Changing the feature extractor takes a restart.
func sameInputDim(old, m *Loaded) error {
	if a, b := old.Model.InputDim(), m.Model.InputDim(); a != b {
		return fmt.Errorf("model %s takes %d features per frame, the model in use (%s) takes %d: the batches in the spool would all fail; keeping the model in use (to change the feature extractor, replace the model and restart setmatchd)",
			m.Path, b, old.Path, a)
	}
	return nil
}
