import CX11
import Foundation

/// An X display's screen that `--camera screen:NAME` can capture.
public struct ScreenInfo: Sendable, Hashable {
    /// The display name, `:0`.
    public var display: String
    public var width: Int
    public var height: Int
}

/// Lists the X displays of this machine: the local servers' sockets in `/tmp/.X11-unix` and
/// `$DISPLAY`, each opened to read its size (one that does not answer is left out).
public enum ScreenList {
    public static func list() -> [ScreenInfo] {
        let sockets: [String] = (try? FileManager.default.contentsOfDirectory(atPath: "/tmp/.X11-unix")) ?? []
        var names = Set<String>()
        for socket in sockets where socket.hasPrefix("X") && Int(socket.dropFirst()) != nil {
            names.insert(":" + socket.dropFirst())
        }
        if let display = ProcessInfo.processInfo.environment["DISPLAY"], !display.isEmpty { names.insert(display) }
        return names.sorted().compactMap(screen)
    }

    /// The size of `display`'s default screen, or nil when it cannot be opened.
    public static func screen(_ display: String) -> ScreenInfo? {
        guard let connection = XOpenDisplay(display) else { return nil }
        defer { XCloseDisplay(connection) }
        let screen = XDefaultScreen(connection)
        return ScreenInfo(display: display, width: Int(XDisplayWidth(connection, screen)), height: Int(XDisplayHeight(connection, screen)))
    }
}
