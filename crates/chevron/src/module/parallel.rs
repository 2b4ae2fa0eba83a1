//! Loading one code object on several devices at once: [`Module::load_on`].
//!
//! Each device loads on its own thread (a driver's module load compiles PTX and copies the
//! image to the device, independently per device), so loading on N devices takes about as
//! long as on the slowest one rather than the sum. The code object is read once, before the
//! threads start, and shared by them (its PTX parsed once for every device).

use crate::code_object::CodeObject;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::module::Module;

impl Module {
    /// Loads the code object `bytes` (any kind, detected from its content as by
    /// [`Module::from_bytes`]) on every device of `devices` in parallel; returns the modules
    /// in the order of `devices`. When a load fails, the error of the first failing device in
    /// that order is returned (the modules loaded elsewhere are dropped).
    pub fn load_on(devices: &[&Device], bytes: &[u8]) -> Result<Vec<Module>> {
        Module::load_named_on(devices, bytes, "<memory>")
    }

    /// [`Module::load_on`] with the name errors give the code object (a file name).
    pub fn load_named_on(
        devices: &[&Device],
        bytes: &[u8],
        source_name: &str,
    ) -> Result<Vec<Module>> {
        match devices {
            [] => Ok(Vec::new()),
            [device] => Ok(vec![Module::from_named_bytes(device, bytes, source_name)?]),
            _ => load_each(devices, &CodeObject::read(bytes, source_name)),
        }
    }
}

/// Loads `code` on every device of `devices`, one thread each; the modules in that order.
fn load_each(devices: &[&Device], code: &CodeObject) -> Result<Vec<Module>> {
    std::thread::scope(|scope| {
        let loads: Vec<_> = devices
            .iter()
            .map(|device| {
                std::thread::Builder::new()
                    .name(format!("chevron load {}", device.label()))
                    .spawn_scoped(scope, move || Module::from_code_object(device, code))
            })
            .collect();
        loads
            .into_iter()
            .zip(devices)
            .map(|(load, device)| joined(load, device))
            .collect()
    })
}

/// The module a load thread returned; a thread that could not start or panicked is an error
/// naming the device.
fn joined(
    load: std::io::Result<std::thread::ScopedJoinHandle<'_, Result<Module>>>,
    device: &Device,
) -> Result<Module> {
    let failed = |message: String| Error::InvalidValue {
        call: "Module::load_on",
        message: format!("loading on {}: {message}", device.label()),
    };
    let handle = load.map_err(|err| failed(format!("no thread could be started ({err})")))?;
    handle
        .join()
        .map_err(|_| failed("the load panicked".to_string()))?
}
