//! Only tests: `tests/it` runs the wasm builds of the example plugins
//! (`cargo xtask examples`) through kguest-host and compares their decisions
//! with kube-scheduler-wasm-extension's own guests (nodenumber) and with a
//! reading of upstream's formula (imagelocality).
