# Many vCPUs: the limits KVM sets and minivmm names, and guest.elf's suites
# at counts past 64 (APIC IDs past 255, every Hyper-V VP-set bank). Kept to a
# few runs: each boot of hundreds of vCPUs on a small host takes seconds.

c="--cpus past KVM_CAP_MAX_VCPUS is refused, naming the limit"
run "$c" 2 -- --cpus 1048576 "$ELF" &&
	has "$c" err "--cpus 1048576: KVM on this host allows at most" &&
	has "$c" err "(KVM_CAP_MAX_VCPUS)" && ok "$c"

# The most vCPUs guest.elf runs (1024) or what this KVM allows, if fewer:
# the refusal above names KVM's limit.
sc_kvm=$(sed -n 's/.*allows at most \([0-9]*\) vCPUs.*/\1/p' "$T/err")
sc_max=1024
[ -n "$sc_kvm" ] && [ "$sc_kvm" -lt "$sc_max" ] && sc_max=$sc_kvm

c="smoke with $sc_max vCPUs (APIC IDs past 255)"
run "$c" 0 -- --cpus "$sc_max" --timeout 120 "$ELF" -- smoke &&
	has "$c" out "minivmm: $sc_max vCPUs" && has "$c" out "PASS: smoke: every vCPU came online" &&
	has "$c" out "PASS: smoke: x2APIC ID == vCPU index" &&
	has "$c" out "PASS: smoke: fixed IPI to each other vCPU, delivered exactly once" &&
	has "$c" out " passed, 0 failed" && ok "$c"

# The flush cases ran across the banks, or the negative control saw no stale
# translation on this (loaded) host and they were skipped, saying so.
sc_flush_ok() {
	if grep -qF "SKIP: hv: flush cases (stale translations not observable here" "$T/out"; then
		return 0
	fi
	has "$1" out "PASS: hv: negative control: without a flush, worker vCPU" &&
		has "$1" out "PASS: hv: FlushVirtualAddressListEx XMM-fast, every other bank" &&
		has "$1" out "PASS: hv: FlushVirtualAddressSpaceEx regular, VP 101 (bank 1)"
}

# 200 vCPUs: four banks, the last one partial, bank 2 between holes.
c="hv with 200 vCPUs: every bank, holes, the last bank, SET_ALL; no bank SKIP"
if [ "$sc_max" -lt 200 ]; then
	skip "$c" "KVM here allows $sc_max vCPUs"
elif run "$c" 0 -- --cpus 200 --timeout 200 "$ELF" -- hv; then
	if grep -qE "^SKIP: .*bank" "$T/out"; then
		bad "$c" "a bank SKIP: $(grep -E '^SKIP: .*bank' "$T/out" | head -1)"
	elif grep -q "^FAIL" "$T/out"; then
		bad "$c" "a FAIL line"
	else
		has "$c" out "PASS: hv: SendSyntheticClusterIpiEx regular to a VP in each bank: VPs 1, 72, 143, 198 in 4 banks" &&
			has "$c" out "PASS: hv: SendSyntheticClusterIpiEx XMM-fast to every other bank: VPs 0, 63, 128, 191 in 2 banks" &&
			has "$c" out "PASS: hv: SendSyntheticClusterIpiEx XMM-fast to the last bank: VPs 192, 199 in 1 banks" &&
			sc_flush_ok "$c" &&
			has "$c" out "PASS: hv: SendIpiEx set {0, 200} (VP 200 absent): INVALID_VP_INDEX" &&
			has "$c" out " passed, 0 failed" && ok "$c"
	fi
fi

# stress at 256 vCPUs: every sender's 64 peers spread over the four banks,
# exact counts. Minutes on a loaded 2-CPU host at worst: a longer bound.
c="stress with 256 vCPUs: exact delivery counts, every call made"
sc_limit=$RUN_LIMIT
RUN_LIMIT=400
if [ "$sc_max" -lt 256 ]; then
	skip "$c" "KVM here allows $sc_max vCPUs"
elif run "$c" 0 -- --cpus 256 --timeout 380 "$ELF" -- stress; then
	has "$c" out "PASS: stress: every (sender, target) pair: deliveries == sends" &&
		has "$c" out "16384 (sender, target) pairs" &&
		has "$c" out "PASS: stress: every hypercall returned SUCCESS with all reps" &&
		has "$c" out "PASS: stress: every vCPU sent IPIs and flushed" &&
		has "$c" out " passed, 0 failed" && ok "$c"
fi
RUN_LIMIT=$sc_limit
