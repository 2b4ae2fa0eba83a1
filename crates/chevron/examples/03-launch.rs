//! Loads PTX, finds a kernel by name and launches it with a tuple of arguments.

use chevron::{Buffer, LaunchConfig, Module, Runtime};

const PTX: &str = include_str!("../tests/data/basics.ptx");

fn main() -> chevron::Result<()> {
    let runtime = Runtime::new()?;
    let device = runtime.default_device()?;
    let module = Module::from_ptx(device, PTX)?;
    let copy_plus = module.kernel("copy_plus")?;
    println!(
        "{} takes {:?}",
        copy_plus.display_name(),
        copy_plus.params()
    );

    let n = 10u32;
    let src = Buffer::from_slice(device, &(0..n).collect::<Vec<u32>>())?;
    let dst = Buffer::<u32>::zeroed(device, n as usize)?;
    let stream = device.default_stream()?;
    let config = LaunchConfig::for_elements(n as usize, 128);
    copy_plus
        .launch(&stream, config, (&src, &dst, 100u32, n))?
        .wait()?;
    println!("dst = {:?}", dst.to_vec()?);

    // A mistake is caught before the driver sees it, naming kernel and parameter.
    if let Err(err) = copy_plus.launch(&stream, config, (&src, &dst, 100u64, n)) {
        println!("as expected: {err}");
    }
    Ok(())
}
