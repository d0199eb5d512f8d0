#!/bin/sh
# pipeline.sh -- a shell pipeline of three small C programs:
#
#     sh -c 'pipeline_producer | pipeline_filter | pipeline_consumer'
#
# The producer prints 20 numbered lines (one write each), the filter keeps
# the even ones, upper-cased (one write at exit: stdio buffering), the
# consumer prints "consumer: 10 lines, N bytes". The programs are found next
# to this script (build/bin, where the build copies it) or in ../build/bin.
#
#     build/bin/radar record -o rec -- build/bin/pipeline.sh
set -e
case $0 in
  */*) here=${0%/*} ;;
  *) here=$(dirname "$(command -v "$0")") ;;
esac
if [ -x "$here/pipeline_producer" ]; then
  bin=$here
elif [ -x "$here/../build/bin/pipeline_producer" ]; then
  bin=$here/../build/bin
else
  echo "pipeline.sh: pipeline_producer not found next to me or in ../build/bin; build the samples first" >&2
  exit 1
fi
PATH=$bin:$PATH
export PATH
exec sh -c 'pipeline_producer | pipeline_filter | pipeline_consumer'
