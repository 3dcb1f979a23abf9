import Testing
@testable import StageMedia
