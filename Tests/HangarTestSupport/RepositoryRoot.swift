/// The repository root, found from this file's path (Tests/HangarTestSupport/RepositoryRoot.swift), so tests
/// read the repository's files (the corpus, fixtures, migrations, scripts) wherever it is checked out.
public let repositoryRoot: String = {
    var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}()
