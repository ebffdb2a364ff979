pub fn format_rfc3339(_s: i64, _n: i32, _d: u8, _b: &mut [u8; 40]) -> Option<&str> { None }
pub fn format_go_duration(_n: i64, _b: &mut [u8; 40]) -> &str { "" }
