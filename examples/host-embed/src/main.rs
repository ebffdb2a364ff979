//! `host-embed PLUGIN.wasm POD NODE...`: see the library docs.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [wasm, pod, nodes @ ..] = &args[..] else {
        eprintln!("usage: host-embed PLUGIN.wasm POD NODE... (API-server protobuf or JSON files)");
        return ExitCode::from(2);
    };
    let read = |path: &String| std::fs::read(path).map_err(|err| format!("{path}: {err}"));
    let result = (|| -> Result<String, Box<dyn std::error::Error>> {
        let nodes = nodes.iter().map(read).collect::<Result<Vec<_>, _>>()?;
        host_embed::schedule(&read(wasm)?, &read(pod)?, &nodes)
    })();
    match result {
        Ok(out) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(1)
        }
    }
}
