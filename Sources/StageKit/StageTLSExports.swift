// `StageTLSConfiguration` and `StageTLSError` belong to the SDK's API (`Stage(token:strategy:tls:)`),
// so `import StageKit` brings them.
@_exported public import StageTLS
