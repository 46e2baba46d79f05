package deploy

import (
	"strconv"

	"setmatch/learn"
	"setmatch/model"
)

// EffectiveParams replaces, in the parameters the model records
// (Meta.Params, the command line of setmatch train), the values that mean
// "the default" by what training used: d, and ν_w and ν_b when W was
// learned (0 on the command line means the smallest class − 1); without a
// learned W it drops ν_w and ν_b, which played no part. labels are the
// training sets' labels.
func (r *Result) EffectiveParams(labels []string) {
	p := r.Model.Meta.Params
	if p == nil {
		return
	}
	p["dim"] = strconv.Itoa(r.Model.Dim())
	switch tr := r.Trained; {
	case tr != nil:
		p["nu-w"], p["nu-b"] = strconv.Itoa(tr.NuW), strconv.Itoa(tr.NuB)
	case r.Model.Selection.Method.IsDR():
		ids, _ := model.ClassIndex(labels)
		nuW := learn.DefaultNuW(ids)
		p["nu-w"], p["nu-b"] = strconv.Itoa(nuW), strconv.Itoa(nuW)
	default:
		delete(p, "nu-w")
		delete(p, "nu-b")
	}
}
