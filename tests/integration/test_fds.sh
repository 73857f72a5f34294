#!/bin/sh
# test_fds.sh — the preload keeps out of the program's file descriptors: a shell's `exec 3>/dev/null`,
# a program that puts its own file on every descriptor the preload held, and one that closes every
# descriptor, all keep what they made, in the baseline and in every fault run.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# The C program checks its own descriptors (tests/programs/fdkeep.c); its allocations go through a
# function without unwind information, so libunwind checks stack addresses with its pipe. A run
# whose check fails exits 3.
for mode in shell dup2 closeall; do
    "$FAILRUN" run -q --db "fdkeep-$mode.db" -- "$PROGRAMS/fdkeep" "$mode" >"fdkeep-$mode.out" 2>&1
    check_equal "fdkeep $mode: the baseline keeps its descriptors (exit 0)" 0 \
        "$(sql "fdkeep-$mode.db" "SELECT exit_code FROM runs WHERE kind = 'baseline'")"
    check_equal "fdkeep $mode: no fault run finds a descriptor of its own changed" 0 \
        "$(sql "fdkeep-$mode.db" "SELECT count(*) FROM runs WHERE kind = 'fault' AND exit_code = 3")"
    check "fdkeep $mode: the fault runs happened" \
        test "$(sql "fdkeep-$mode.db" "SELECT count(*) FROM runs WHERE kind = 'fault'")" -ge 2
done

# The shell script of issue 26, under dash and bash: descriptors 3 and 4 replaced by /dev/null, then
# 300 subshells. A run whose `echo >&3` fails because descriptor 3 is no longer /dev/null writes a
# line to $FDKEEP_MARK. Not marked: an `echo` that failed through an injected fault (3 is as it
# was), and a run whose `exec` itself failed through one (3 never was /dev/null: exit 4).
cat >fd3.sh <<'EOF'
exec 4>/dev/null 3>/dev/null
[ "$(readlink /proc/$$/fd/3)" = /dev/null ] || exit 4
i=0
while [ $i -lt 300 ]; do
  i=$((i+1)); x=$(echo $i); eval "v$i=\$x"
  if ! echo "$i" >&3; then
    fd3=$(readlink /proc/$$/fd/3)
    [ "$fd3" = /dev/null ] || echo "fd 3 taken at $i: $fd3" >>"$FDKEEP_MARK"
    exit 3
  fi
done
echo "fd 3 fine: $(readlink /proc/$$/fd/3)"
EOF
FDKEEP_MARK=$work/mark
export FDKEEP_MARK
# Before the fix, dash's baseline failed in about half of the campaigns.
for shell in dash bash; do
    rounds="1 2 3"
    [ "$shell" = bash ] && rounds="1 2"
    for round in $rounds; do
        "$FAILRUN" run -q --max-runs 4 --db "$shell-$round.db" -- "$shell" fd3.sh \
            >"$shell-$round.out" 2>&1
    done
    check_equal "$shell: every baseline prints 'fd 3 fine'" \
        "$(for round in $rounds; do echo 'fd 3 fine: /dev/null'; done)" \
        "$(for round in $rounds; do cat "$(sql "$shell-$round.db" \
            "SELECT dir FROM runs WHERE kind = 'baseline'")/stdout" 2>/dev/null; done)"
    check "$shell: no campaign warns that the command fails without faults" \
        test -z "$(grep -l 'even without faults' "$shell"-*.out)"
done
check_equal "dash, bash: no run found descriptor 3 taken" "" "$(cat "$FDKEEP_MARK" 2>/dev/null)"
