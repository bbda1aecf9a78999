# The fault-injection tier's stand-in program: does what its first argument says, so the real runner,
# limits and error mapping meet a crash, a hang, garbage output, a flood of stderr or a SIGKILL.
# Usage: sh fake-engine.sh <behaviour> <input> <output>
behaviour=$1
input=$2
output=$3
case "$behaviour" in
copy)
  echo "fake: page 1 of 2" >&2
  echo "fake: page 2 of 2" >&2
  cp -- "$input" "$output"
  ;;
crash)
  echo "fake: internal error, giving up" >&2
  exit 3
  ;;
damaged)
  echo "fake: input is damaged" >&2
  exit 2
  ;;
garbage)
  # Exit 0 with an output no PDF reader opens, as Ghostscript does after `Couldn't initialise file`.
  head -c 4096 /dev/urandom >"$output"
  ;;
huge-stderr)
  # About 8 MB of warnings, then the fatal message last (as engines print it): only the bounded tail
  # of stderr is kept, and it must still hold that message.
  yes "fake: warning: the same complaint again" | head -n 200000 >&2
  echo "fake: input is damaged" >&2
  exit 1
  ;;
hang)
  # A grandchild in the same process group (as ocrmypdf's gs and tesseract are), naming the files
  # in its argv so tests can find it; then wait for ever.
  sh "$0" linger "$input" "$output" &
  echo "fake: page 1 of 2" >&2
  wait
  ;;
linger)
  while :; do sleep 1; done
  ;;
sigkill)
  kill -KILL $$
  ;;
*)
  echo "fake: unknown behaviour $behaviour" >&2
  exit 64
  ;;
esac
