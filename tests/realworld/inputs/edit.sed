/^#/d
s/^\([a-z]*\):x:\([0-9]*\):.*:\([^:]*\)$/\1 uid=\2 shell=\3/
/uid=[0-9]\{4\}/ {
    s/shell=\/bin\//shell=/
    y/abcdefghijklmnopqrstuvwxyz/ABCDEFGHIJKLMNOPQRSTUVWXYZ/
}
$a\
-- end --
