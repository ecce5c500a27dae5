/**
 * \file
 * Doxygen groups of the talb module: the API documentation shows the module's two halves the
 * way model/ is laid out. Every class says \\ingroup of its folder's group.
 */

/**
 * \defgroup talb TaLB: tensor-aware load balancing
 * An ns-3 module for tensor-aware load balancing of distributed DNN training traffic: the switch
 * half (leaf-spine switches, queues, tags, path selectors) and the generator half (training
 * jobs, schedulers, collectives, transports, background traffic). doc/talb.rst is the manual.
 */

/**
 * \defgroup talb-switch Switch
 * \ingroup talb
 * Device-level leaf-spine switches, strict-priority ECN port queues, PFC and the DRE.
 */

/**
 * \defgroup talb-host Host labelling
 * \ingroup talb
 * The tensor byte tags that ride on a socket's bytes and the host egress hook that turns them
 * into one label per packet (the TaLB option as a TalbTag, and DSCP).
 */

/**
 * \defgroup talb-wire Wire format
 * \ingroup talb
 * The TaLB IPv4 option, the DSCP mapping and the NCCL plugin frame header (talb-wire.h, plain C,
 * shared with the testbed), and TalbTag, the option's ns-3 carrier.
 */

/**
 * \defgroup talb-lb Load balancers
 * \ingroup talb
 * The path-selector family: TalbLoadBalancer and one class per policy (ECMP, RPS, LetFlow,
 * DRILL, CONGA, TaLB), registered by short name.
 */

/**
 * \defgroup talb-training Training
 * \ingroup talb
 * DNN models and the model zoo, workers and jobs, and two plug-in families: communication
 * schedulers (TalbCommScheduler) and collectives (TalbCollective).
 */

/**
 * \defgroup talb-graph Execution graphs
 * \ingroup talb
 * A training job as plain data (no ns-3 types): every rank's compute and communication
 * operations with their dependencies, the communicator groups and Megatron-core's rank layout
 * that forms them, and the per-rank ready queue that issues operations as their dependencies
 * complete. Generators and trace readers produce graphs; the job engine runs them.
 */

/**
 * \defgroup talb-transport Transports
 * \ingroup talb
 * How a collective's messages travel between hosts: the TalbTransport family and its message
 * channels (TalbMessageChannel): TCP and RoCEv2.
 */

/**
 * \defgroup talb-traffic Background traffic
 * \ingroup talb
 * Background flows drawn from published flow-size distributions.
 */

/**
 * \defgroup talb-common Common
 * \ingroup talb
 * What every half uses: the plug-in registries (TalbRegistry) and the text parsers (TalbParse).
 */

/**
 * \defgroup talb-helper Helpers
 * \ingroup talb
 * Topology, training-job and background-traffic helpers, the output writer and the scenario
 * runner.
 */
