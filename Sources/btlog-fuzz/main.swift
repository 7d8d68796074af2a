import BTFuzz
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Built two ways (Scripts/fuzz.sh):
// - with -sanitize=fuzzer,address -DFUZZING: libFuzzer's main drives LLVMFuzzerTestOneInput;
//   BTLOG_FUZZ_TARGET names the target.
// - plain: `btlog-fuzz TARGET FILE...` runs inputs once (reproducing a crash without the
//   sanitizer build), and `btlog-fuzz --list` names the targets.
#if FUZZING
// libFuzzer's own main is not linked (this file is the program's main); its driver is called
// with the callback instead, after the target is chosen and warmed up.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<Int32>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

let targetName = getenv("BTLOG_FUZZ_TARGET").map { String(cString: $0) } ?? ""
guard let target = FuzzTarget(rawValue: targetName) else {
    fputs("btlog-fuzz: set BTLOG_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))\n", stderr)
    exit(2)
}
let selectedTarget = target
selectedTarget.run([]) // builds the decoder's warm session once, before the inputs
var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argc, &argv) { data, size in
    selectedTarget.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
})
#else
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--list" {
    for target in FuzzTarget.allCases { print(target.rawValue) }
    exit(0)
}
guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[0]) else {
    fputs("usage: btlog-fuzz TARGET FILE...   (targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")))\n", stderr)
    exit(2)
}
for path in arguments.dropFirst() {
    guard let data = FileManager.default.contents(atPath: path) else {
        fputs("btlog-fuzz: \(path): cannot read\n", stderr)
        exit(1)
    }
    target.run([UInt8](data))
    print("\(path): ran \(data.count) bytes through \(target.rawValue)")
}
#endif
