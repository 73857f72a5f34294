BEGIN { FS = ":" }
/^#/ { next }
{
    shell[$7]++
    if ($3 >= 1000) users = users sprintf("%s(%d) ", toupper($1), $3)
    n = split($6, parts, "/")
    depth[n]++
}
END {
    for (s in shell) count++
    printf "shells: %d\n", count
    print "users:", users
    for (d = 1; d <= 6; d++) if (d in depth) printf "depth %d: %d\n", d, depth[d]
    s = "alpha beta gamma"; gsub(/a/, "A", s); print s, length(s), index(s, "gam")
}
