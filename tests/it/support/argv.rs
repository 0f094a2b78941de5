//! Reading claude's command line as the stand-in recorded it (`Standin::argvs`).

/// The value after `flag` in `argv`; for a flag given twice, the last one, which is the one claude
/// reads.
pub fn argv_value<'a>(argv: &'a [String], flag: &str) -> Option<&'a str> {
    let at = argv.iter().rposition(|a| a == flag)?;
    argv.get(at + 1).map(String::as_str)
}
