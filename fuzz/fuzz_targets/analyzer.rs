#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| book_chat_fuzz::analyzer(data));
