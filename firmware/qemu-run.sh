#!/usr/bin/env bash
# Cargo runner: boots a firmware ELF on QEMU and exits with its semihosting
# exit status.
#
#   bash qemu-run.sh ELF [QEMU ARGS...]
#
# Machine: mps2-an386 (Cortex-M4F) for thumbv7em builds, mps2-an385
# (Cortex-M3) for thumbv6m builds; FW_MACHINE / FW_CPU override (e.g.
# FW_MACHINE=mps2-an500 FW_CPU=cortex-m7). Output goes through `defmt-print`
# only when the ELF carries defmt data (the `_defmt_version_` symbol:
# `-Tdefmt.x` adds a .defmt section to every program, so the section alone
# proves nothing).
set -euo pipefail
elf="$1"
shift
case "$elf" in
  */thumbv6m-none-eabi/*) machine=mps2-an385 cpu=cortex-m3 ;;
  *) machine=mps2-an386 cpu=cortex-m4 ;;
esac
machine="${FW_MACHINE:-$machine}"
cpu="${FW_CPU:-$cpu}"
qemu=(qemu-system-arm -machine "$machine" -cpu "$cpu" -nographic -monitor none -serial none
  -semihosting-config enable=on,target=native -kernel "$elf" "$@")
nm_tool=llvm-nm
command -v "$nm_tool" >/dev/null 2>&1 || nm_tool=nm
if "$nm_tool" "$elf" 2>/dev/null | grep ' _defmt_version_' >/dev/null; then  # no -q: an early exit would SIGPIPE nm under pipefail
  set -o pipefail
  "${qemu[@]}" | defmt-print -e "$elf" ${DEFMT_PRINT_ARGS:-}
else
  exec "${qemu[@]}"
fi
