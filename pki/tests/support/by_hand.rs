//! For the ignored tests run by hand that write files for another tool: where to write.

/// The value of the environment variable `name`, or `None` after saying it must be set
/// (`hint` names what it holds): the test then returns without writing anything.
pub fn out_var(name: &str, hint: &str) -> Option<String> {
    let value = std::env::var(name).ok();
    if value.is_none() {
        eprintln!("set {name}={hint}");
    }
    value
}
