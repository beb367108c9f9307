# Many vCPUs: the limits KVM sets and minivmm names, and guest.elf's suites
# at counts past 64 (APIC IDs past 255, every Hyper-V VP-set bank). Kept to a
# few runs: each boot of hundreds of vCPUs on a small host takes seconds.

c="--cpus past KVM_CAP_MAX_VCPUS is refused, naming the limit"
run "$c" 2 -- --cpus 1048576 "$ELF" &&
	has "$c" err "--cpus 1048576: KVM on this host allows at most" &&
	has "$c" err "(KVM_CAP_MAX_VCPUS)" && ok "$c"
