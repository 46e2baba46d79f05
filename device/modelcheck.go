package device

import "fmt"

// sameInputDim refuses, on reload, a model whose batches have another number
// of features than the running model's, or the same number from another
// feature pipeline (its spec, or none): the spool's writers make batches of
// one feature extractor, and every one of them would fail, or be matched in
// the wrong feature space, with the new model. Changing the feature
// extractor takes a restart. Between two image models the refusal names
// both pipelines: their bursts of images would not fail.
func sameInputDim(old, m *Loaded) error {
	a, b := old.Model.InputDim(), m.Model.InputDim()
	if a != b && old.Model.Features != nil && m.Model.Features != nil {
		return fmt.Errorf("model %s %s (%d features per frame), the model in use (%s) %s (%d features per frame): another feature extractor; keeping the model in use (to change the feature extractor, replace the model and restart setmatchd)",
			m.Path, pipelineOf(m), b, old.Path, pipelineOf(old), a)
	}
	if a != b {
		return fmt.Errorf("model %s takes %d features per frame, the model in use (%s) takes %d: the batches in the spool would all fail; keeping the model in use (to change the feature extractor, replace the model and restart setmatchd)",
			m.Path, b, old.Path, a)
	}
	if a, b := pipelineOf(old), pipelineOf(m); a != b {
		return fmt.Errorf("model %s %s, the model in use (%s) %s: the same %d numbers per frame would mean other features, so every batch of features would be matched in the wrong space; keeping the model in use (to change the feature extractor, replace the model and restart setmatchd)",
			m.Path, b, old.Path, a, m.Model.InputDim())
	}
	return nil
}

// pipelineOf says which features the model m takes: those of its feature
// pipeline's spec, or feature vectors it records no pipeline for.
func pipelineOf(m *Loaded) string {
	if f := m.Model.Features; f != nil {
		return fmt.Sprintf("reads frames with --features %s", f.Pipeline.Name())
	}
	return "takes feature vectors and records no feature pipeline"
}
