#!/bin/sh
# Makes N rank traces of one made-up run for bench_ranks: a rank fixture replicated to SIZE_MB by
# make_large_trace.py, then written once per rank with its own distributedInfo.rank and world_size.
# Usage: tools/make_rank_set.sh OUTDIR [N=8] [SIZE_MB=40]
set -eu
out=$1
n=${2:-8}
size=${3:-40}
here=$(dirname "$0")
mkdir -p "$out"
python3 "$here/make_large_trace.py" "$here/../tests/data/ranks/gloo/even/rank-0.json.gz" "$out/base.json" --size-mb "$size"
i=0
while [ "$i" -lt "$n" ]; do
    sed -e "0,/\"rank\": 0,/s//\"rank\": $i,/" -e "0,/\"world_size\": 4,/s//\"world_size\": $n,/" "$out/base.json" > "$out/rank-$i.json"
    i=$((i + 1))
done
rm "$out/base.json"
