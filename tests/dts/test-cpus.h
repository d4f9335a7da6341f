/* test-cpus.h - macros for the small trees in tests/dts/, inputs of
 * tests/host/test_topology.c. Each tree is a minimal /cpus plus whatever is
 * broken in it; the test beside it names the expected fallback. */
#ifndef TEST_CPUS_H
#define TEST_CPUS_H

#define TEST_ROOT                       \
	#address-cells = <2>;           \
	#size-cells = <2>;              \
	compatible = "littlebig,test";

/* cpuN with reg N (1 cell), psci, a given capacity-dmips-mhz; extras after. */
#define TCPU(n, dm, ...)                                     \
	cpu##n: cpu@n {                                         \
		device_type = "cpu";                            \
		compatible = "arm,cortex-a53";                  \
		reg = <n>;                                      \
		enable-method = "psci";                         \
		capacity-dmips-mhz = <dm>;                      \
		__VA_ARGS__                                     \
	};

#define TCORE(c, n) core##c { cpu = <&cpu##n>; };

/* An OPP entry in MHz and microvolts. */
#define TOPP(mhz, uv)                                           \
	opp-mhz##000000 {                                       \
		opp-hz = /bits/ 64 <mhz##000000>;               \
		opp-microvolt = <uv>;                           \
		clock-latency-ns = <100000>;                    \
	};

#endif
