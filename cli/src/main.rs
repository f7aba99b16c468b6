//! The `shangmi` binary (also `sm3sum` when invoked under that name); see the library.

fn main() -> std::process::ExitCode {
    shangmi_cli::main()
}
