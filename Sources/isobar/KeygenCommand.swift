import ArgumentParser
import IsobarBus
import IsobarHost

struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Generate a CURVE keypair for an encrypted, authenticated bus between hosts.",
        discussion: """
        With --out or --name: writes DIR/NAME.key (the secret key, mode 0600) and DIR/NAME.pub (the public
        key), one Z85 key each; existing files are kept unless --force. Otherwise prints the keypair as
        ISOBAR_CURVE_PUBLICKEY='...' and ISOBAR_CURVE_SECRETKEY='...' lines, ready for eval.
        The broker takes its .key with --curve-secret and the clients' .pub files with --curve-allow;
        each client sets ISOBAR_CURVE_SERVERKEY=broker.pub and ISOBAR_CURVE_SECRETKEY=its own .key.
        """)

    @Option(help: "Directory to write NAME.key and NAME.pub into (created if missing; default: the current directory).")
    var out: String?
    @Option(help: "Base name of the key files (default: isobar).")
    var name: String?
    @Flag(help: "Replace existing key files.")
    var force = false

    func run() throws {
        guard ZMQCurve.isAvailable else { throw CLIError("keygen: \(BusSecurityError.curveUnavailable)") }
        let pair: ZMQCurveKeyPair
        do {
            pair = try ZMQCurve.generateKeyPair()
        } catch {
            throw CLIError("keygen: \(error)")
        }
        guard out != nil || name != nil else {
            // Z85 uses $, &, ( and other shell characters but never a single quote: quoted this way the
            // output can be given to `eval` as is.
            print("\(BusSecurity.publicKeyVariable)='\(pair.publicKey)'")
            print("\(BusSecurity.secretKeyVariable)='\(pair.secretKey)'")
            return
        }
        do {
            let paths = try CurveKeyFile.write(pair, directory: out ?? ".", name: name ?? "isobar", overwrite: force)
            print("secret key: \(paths.secretPath) (mode 0600, keep it on this host)")
            print("public key: \(paths.publicPath) \(pair.publicKey)")
        } catch {
            throw CLIError("keygen: \(error)")
        }
    }
}
