/// The process layer is built on the bus client's types (where the broker is, the CURVE client
/// settings, `BusClient`, the wake descriptor, the readiness line): a user of IsobarHost (the CLI,
/// the benchmarks, the process tests) sees them with it. The gateway imports IsobarBusClient alone.
@_exported import IsobarBusClient
@_exported import IsobarStdio
