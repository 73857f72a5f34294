#!/bin/bash
# judge.sh LABEL ID — help judge finding ID of campaign LABEL (NAME, or NAME@C.UTF-8 for the
# UTF-8 pass) after `make realworld`: prints its
# identity and stacks, replays it beside a plain run of the command (exit status, stderr, output
# difference), and for a leak replays it again with LeakSanitizer's standalone runtime preloaded
# after libfail: a block LSan does not report was still reachable at exit (no real leak).
#   tests/realworld/judge.sh sed 4
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/build/realworld
name=$1
id=$2
report=$out/$name.json
[ -f "$report" ] || { echo "judge: no $report (run make realworld first)" >&2; exit 2; }
finding=$(jq --argjson id "$id" '.findings[] | select(.id == $id)' "$report")
[ -n "$finding" ] || { echo "judge: $name has no finding $id" >&2; exit 2; }
sh "$root/tools/install-packages.sh" judge liblsan0 || exit 2

python3 -c '
import json, os, sys
sys.path.insert(0, sys.argv[3])
import check
report = json.load(open(sys.argv[1]))
finding = [f for f in report["findings"] if f["id"] == int(sys.argv[2])][0]
def frame(f):
    text = "%s!%s+0x%x" % (os.path.basename(f.get("module") or "?"), (f.get("function") or "??"), f.get("offset") or 0)
    return text + (" (%s:%s)" % (f["file"], f["line"]) if f.get("file") else "")
print("%s %s %s  identity %s  (%s(%s), %s run(s))" % (sys.argv[4], finding["outcome"], finding.get("signal_name") or "",
      check.identity(finding), finding.get("function"), finding.get("size"), finding.get("runs")))
for key in ("injection_stack", "crash_stack", "leaked_stack"):
    if finding.get(key):
        print("  %s:" % key)
        for f in finding[key]:
            print("    " + frame(f))
' "$report" "$id" "$here" "$name"

replay=$(jq -r '.replay' <<<"$finding")
echo "  replay: $replay"
command=$(jq -r '.campaign.command | map(@sh) | join(" ")' "$report")
stdin=/dev/null
[ -f "$out/$name.files/stdin" ] && stdin=$out/$name.files/stdin
scratch=$(mktemp -d "${TMPDIR:-/tmp}/libfail-judge.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
cd "$out/work/$name" || exit 2
# The campaign's locale: NAME ran under C, NAME@LOCALE under LOCALE (run.sh).
case $name in *@*) export LC_ALL=${name#*@} ;; *) export LC_ALL=C ;; esac
eval "$command" <"$stdin" >"$scratch/base.out" 2>"$scratch/base.err"
echo "plain run: exit $?"
eval "$root/build/$replay" </dev/null >"$scratch/replay.out" 2>"$scratch/replay.err"
echo "replay: exit $?; stderr:"
sed 's/^/    /' "$scratch/replay.err" | head -8
echo "output difference (plain < > replay):"
diff "$scratch/base.out" "$scratch/replay.out" | head -12 | sed 's/^/    /'

if [ "$(jq -r '.outcome' <<<"$finding")" = leak ]; then
    # The environment that arms the fault, from --print-env (values may be quoted), with a run
    # folder of our own.
    mkdir "$scratch/run"
    plan=$(sed 's/^failrun replay /failrun replay --print-env /; s/ < .*$//' <<<"$replay")
    environment=()
    while IFS= read -r line; do
        line=${line#\'}
        line=${line%\'}
        case $line in
            LD_PRELOAD=* | ASAN_OPTIONS=*) ;;
            LIBFAIL_DIR=*) # the folder --print-env made stays: ours instead
                rm -rf "${line#LIBFAIL_DIR=}"
                environment+=("LIBFAIL_DIR=$scratch/run") ;;
            *) environment+=("$line") ;;
        esac
    done < <(eval "$root/build/$plan")
    program=$(sed 's/^.* -- //; s/ < .*$//' <<<"$replay")
    lsan=$(ls /usr/lib/x86_64-linux-gnu/liblsan.so.0 2>/dev/null)
    [ -n "$lsan" ] || { echo "judge: no liblsan.so.0 (apt-get install liblsan0)"; exit 2; }
    eval "env \"\${environment[@]}\" LD_PRELOAD=$root/build/libfail-preload.so:$lsan \
        LSAN_OPTIONS=fast_unwind_on_malloc=0:malloc_context_size=14:log_path=$scratch/lsan $program" \
        <"$stdin" >/dev/null 2>&1
    status=$?
    claims=("$scratch"/run/*.claim)
    [ -e "${claims[0]}" ] && fired=yes || fired=no
    echo "LeakSanitizer (exit $status; the fault fired: $fired):"
    if ls "$scratch"/lsan* >/dev/null 2>&1; then
        grep -E 'leak of|SUMMARY|#[2-6] ' "$scratch"/lsan* | head -40 | sed 's/^/    /'
    else
        echo "    no unreachable block at exit: not a leak"
    fi
fi
