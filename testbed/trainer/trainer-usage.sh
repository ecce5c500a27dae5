#!/bin/sh
# talb-trainer's argument and input errors: exit 2 with a message naming the problem, before any
# CUDA call (so this runs on machines without a GPU).
set -u
trainer=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
expect() {
    pattern=$1
    shift
    out=$(env "$@" 2>&1)
    rc=$?
    if [ $rc -ne 2 ] || ! printf '%s' "$out" | grep -q "$pattern"; then
        echo "FAIL: '$*' exited $rc, output: $out"
        fail=1
    fi
}
ok="TALB_RANK=0 TALB_WORLD=2"
expect "id-file=F is required" $ok "$trainer"
expect "unknown option '--bogus'" $ok "$trainer" --id-file=x --bogus
expect "bad value in '--model=lenet'" $ok "$trainer" --id-file=x --model=lenet
expect "bad value in '--iterations=0'" $ok "$trainer" --id-file=x --iterations=0
expect "bad value in '--job=256'" $ok "$trainer" --id-file=x --job=256
expect "bad value in '--compute-scale=-1'" $ok "$trainer" --id-file=x --compute-scale=-1
expect "TALB_WORLD must be set" TALB_RANK=0 "$trainer" --id-file=x
expect "TALB_RANK must be set" TALB_RANK=2 TALB_WORLD=2 "$trainer" --id-file=x
expect "cannot open" $ok "$trainer" --id-file=x --zoo="$dir/missing.csv"
printf 'model,tensor\n' >"$dir/bad.csv"
expect "bad.csv:1: header" $ok "$trainer" --id-file=x --zoo="$dir/bad.csv"
printf 'model,tensor,kind,shape,params,fwd_flops_per_sample,layer_group\nresnet50,a,conv,1,x,0,g\n' \
    >"$dir/bad2.csv"
expect "bad2.csv:2: params 'x'" $ok "$trainer" --id-file=x --zoo="$dir/bad2.csv"
expect "no rows for model 'vgg19'" $ok "$trainer" --id-file=x --zoo="$dir/bad2.csv" --model=vgg19
[ $fail -eq 0 ] && echo PASS
exit $fail
