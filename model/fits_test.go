package model_test

import (
	"setmatch/deploy"
	"setmatch/model"
)

// The fixtures of the model's tests are fitted as setmatch train fits
// models, by package deploy.
func init() { model.SetFits(deploy.FitKFDA, deploy.FitSetKernel, deploy.FitTerms) }
