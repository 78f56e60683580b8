fn main() {
    match ferroflash::Device::new(0) {
        Ok(d) => println!("{d:?}"),
        Err(e) => println!("{e}"),
    }
}
