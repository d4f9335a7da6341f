/* littlebig.h - cpp macros that generate the repeated parts of the trees in
 * dts/ (cpu nodes, cpu-map cores, OPP entries). Only syntax lives here; the
 * facts (capacities, OPPs, addresses) live in the .dtsi/.dts that use them. */
#ifndef LITTLEBIG_DTS_H
#define LITTLEBIG_DTS_H

/* A cpu node labelled cpuN. `type` (LITTLE or BIG) selects the LB_<type>_*
 * facts: compatible, capacity-dmips-mhz, OPP table. Extra properties (the
 * power coefficient of the first cpu of a cluster) go in the trailing args.
 * The including tree defines LB_CPU_REG(unit): reg from the unit address,
 * 1 or 2 cells as its /cpus #address-cells says. */
#define LB_CPU(n, unit, type, ...)                                      \
	cpu##n: cpu@unit {                                              \
		device_type = "cpu";                                    \
		compatible = LB_##type##_COMPAT;                        \
		reg = <LB_CPU_REG(unit)>;                               \
		enable-method = "psci";                                 \
		capacity-dmips-mhz = <LB_##type##_DMIPS>;               \
		operating-points-v2 = <&LB_##type##_OPP>;               \
		d-cache-size = <LB_##type##_L1D>;                       \
		d-cache-line-size = <64>;                               \
		__VA_ARGS__                                             \
	};

/* A cluster's shared, unified L2 (a child of /cpus, as in Linux's hi3660.dtsi), and
 * the property that points a cpu at it (a trailing arg of LB_CPU). */
#define LB_L2(label, idx, bytes)                                         \
	label: l2-cache##idx {                                          \
		compatible = "cache";                                   \
		cache-level = <2>;                                      \
		cache-unified;                                          \
		cache-size = <bytes>;                                   \
		cache-line-size = <64>;                                 \
	};
#define LB_NEXT(label) next-level-cache = <&label>;

/* Linux's energy model reads the coefficient from the first cpu of a policy:
 * like the real HiKey960 tree, we put it there only. */
#define LB_POWER(type) dynamic-power-coefficient = <LB_##type##_POWER>;

/* cpu-map: coreC of the enclosing cluster is cpuN. */
#define LB_CORE(c, n) core##c { cpu = <&cpu##n>; };
#define LB_CORES4(a, b, c, d) LB_CORE(0, a) LB_CORE(1, b) LB_CORE(2, c) LB_CORE(3, d)

/* One operating-points-v2 entry: MHz, microvolts, transition latency in ns. */
#define LB_OPP(mhz, uv, lat_ns)                                         \
	opp-mhz##000000 {                                               \
		opp-hz = /bits/ 64 <mhz##000000>;                       \
		opp-microvolt = <uv>;                                   \
		clock-latency-ns = <lat_ns>;                            \
	};

#endif
