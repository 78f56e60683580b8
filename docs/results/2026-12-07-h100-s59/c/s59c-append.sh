# Session 59 call c ran ../../2026-12-07-h100-s58/c/s58c.sh with these lines appended
# (`cat s58c.sh s59c-append.sh > target/bundle/call.sh`).
# s59: W1-W6 on this card with the branch build (kernels of W1-W6 unchanged since s42)
rem=$((LIMIT - (SECONDS - start))); [ $rem -gt 40 ] && { timeout $((rem-5)) $B bench --rot-gib 2 > $R/bench-w.log 2>&1; save "bench W rc $?"; }
