# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_git_codesearch_global_optspecs
    string join \n C= n/limit= path= lang= branch= rev= mode= json l/files-only max-tokens= no-index explain q/quiet h/help V/version
end

function __fish_git_codesearch_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_git_codesearch_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_git_codesearch_using_subcommand
    set -l cmd (__fish_git_codesearch_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -s C -d 'Run as if started in this directory' -r -F
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -s n -l limit -d 'Number of results (files, with `--files-only`)' -r
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -l path -d 'Only paths matching this glob (e.g. \'src/**/*.rs\')' -r
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -l lang -d 'Only this language (rust, python, go, java, typescript, javascript, c, cpp, …)' -r
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -l branch -d 'Search the index of this branch instead of the checked-out one' -r
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -l rev -d 'Search a commit, tag or branch as committed, read from git\'s object database without checking it out (content already indexed anywhere is reused)' -r
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -l mode -d 'Retrievers to use' -r -f -a "hybrid\t'BM25 + vectors (when available) + symbols'
bm25\t'Full-text BM25 only'
vector\t'Embeddings only'
symbol\t'Definition names only'"
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -l max-tokens -d 'Print whole hits (not snippets) until about N tokens, trimming the last hit at a line boundary and saying what was cut: a budget for coding agents' -r
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -l json -d 'One JSON object per hit on stdout'
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -s l -l files-only -d 'Print ranked unique file paths only (like `rg -l`)'
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -l no-index -d 'Do not build the index if the branch has none yet'
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -l explain -d 'Show what made each hit\'s score: every feature and what it added (with --json, an `explain` field)'
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -s V -l version -d 'Print version'
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -a "search" -d 'Search (the default; use it to search for a word that is also a command name)'
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -a "index" -d 'Build or update the index of the checked-out branch'
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -a "status" -d 'Show what is indexed'
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -a "gc" -d 'Drop branches that no longer exist and content no branch uses'
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -a "doctor" -d 'Check the index for damage, stale locks and interrupted runs; --repair fixes them'
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -a "hooks" -d 'Install or remove the git hooks that keep the index fresh'
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -a "mcp" -d 'Serve the Model Context Protocol over stdio, for coding agents'
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -a "trust" -d 'Let this repository\'s .codesearch.toml choose remote providers, URLs, API key variables and [llm] settings (recorded for its exact content; a change needs trusting again)'
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -a "export" -d 'Write a snapshot of the index to FILE (a tar), e.g. built once by CI'
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -a "import" -d 'Merge a snapshot written by `export` (from any clone) into this index'
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -a "push" -d 'Upload the index of the checked-out branch to object storage (s3://, gs://, az://, file://), only what the remote lacks; REMOTE defaults to `git config codesearch.remote`'
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -a "pull" -d 'Download and merge the branches pushed to REMOTE (default `git config codesearch.remote`), only what this clone lacks; searchable at once'
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -a "generate-assets" -d 'Write the man page and shell completions (for packagers; the repository has them under completions/)'
complete -c git-codesearch -n "__fish_git_codesearch_needs_command" -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand search" -s n -l limit -d 'Number of results (files, with `--files-only`)' -r
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand search" -l path -d 'Only paths matching this glob (e.g. \'src/**/*.rs\')' -r
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand search" -l lang -d 'Only this language (rust, python, go, java, typescript, javascript, c, cpp, …)' -r
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand search" -l branch -d 'Search the index of this branch instead of the checked-out one' -r
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand search" -l rev -d 'Search a commit, tag or branch as committed, read from git\'s object database without checking it out (content already indexed anywhere is reused)' -r
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand search" -l mode -d 'Retrievers to use' -r -f -a "hybrid\t'BM25 + vectors (when available) + symbols'
bm25\t'Full-text BM25 only'
vector\t'Embeddings only'
symbol\t'Definition names only'"
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand search" -l max-tokens -d 'Print whole hits (not snippets) until about N tokens, trimming the last hit at a line boundary and saying what was cut: a budget for coding agents' -r
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand search" -s C -d 'Run as if started in this directory' -r -F
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand search" -l json -d 'One JSON object per hit on stdout'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand search" -s l -l files-only -d 'Print ranked unique file paths only (like `rg -l`)'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand search" -l no-index -d 'Do not build the index if the branch has none yet'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand search" -l explain -d 'Show what made each hit\'s score: every feature and what it added (with --json, an `explain` field)'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand search" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand search" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand index" -l rev -d 'Index a commit, tag or branch as committed, without checking it out' -r
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand index" -s C -d 'Run as if started in this directory' -r -F
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand index" -l dry-run -d 'Show the plan (Compute / AddTag / RemoveTag / Delete counts) and write nothing'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand index" -l resume -d 'Resume an interrupted run without asking'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand index" -l restart -d 'Discard an interrupted run\'s partial work without asking'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand index" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand index" -l no-embed -d 'Leave embedding for later: update chunks and symbols only (vectors stay pending)'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand index" -l wait -d 'Embed in the foreground before returning (by default a low-priority background run embeds what is pending once chunks and symbols are written)'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand index" -l hook -d 'Run as a git hook: never wait for the lock (ask the holder to run again instead)'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand index" -l background -d 'The background embedding run: a hook run at low priority that embeds everything pending'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand index" -l json -d 'Print the result as JSON'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand index" -s h -l help -d 'Print help'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand status" -l branch -d 'Status of this branch instead of the checked-out one' -r
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand status" -s C -d 'Run as if started in this directory' -r -F
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand status" -s v -l verbose -d 'Also list skipped files with the reason'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand status" -l json -d 'Print as JSON'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand status" -s h -l help -d 'Print help'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand gc" -s C -d 'Run as if started in this directory' -r -F
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand gc" -s h -l help -d 'Print help'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand doctor" -s C -d 'Run as if started in this directory' -r -F
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand doctor" -l repair -d 'Fix what was found (rebuilding the index from the work tree if it is badly damaged)'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand doctor" -l json -d 'Print as JSON'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall help" -s C -d 'Run as if started in this directory' -r -F
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall help" -s h -l help -d 'Print help'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall help" -f -a "install" -d 'Write post-checkout, post-merge and post-rewrite hooks (chaining existing ones)'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall help" -f -a "uninstall" -d 'Remove our hooks and restore the ones they replaced'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand hooks; and __fish_seen_subcommand_from install" -s C -d 'Run as if started in this directory' -r -F
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand hooks; and __fish_seen_subcommand_from install" -s h -l help -d 'Print help'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -s C -d 'Run as if started in this directory' -r -F
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -s h -l help -d 'Print help'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand hooks; and __fish_seen_subcommand_from help" -f -a "install" -d 'Write post-checkout, post-merge and post-rewrite hooks (chaining existing ones)'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand hooks; and __fish_seen_subcommand_from help" -f -a "uninstall" -d 'Remove our hooks and restore the ones they replaced'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand hooks; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand mcp" -s C -d 'Run as if started in this directory' -r -F
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand mcp" -s h -l help -d 'Print help'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand trust" -s C -d 'Run as if started in this directory' -r -F
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand trust" -l revoke -d 'Withdraw the trust instead'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand trust" -s h -l help -d 'Print help'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand export" -s C -d 'Run as if started in this directory' -r -F
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand export" -s h -l help -d 'Print help'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand import" -s C -d 'Run as if started in this directory' -r -F
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand import" -s h -l help -d 'Print help'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand push" -s C -d 'Run as if started in this directory' -r -F
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand push" -l all -d 'Push every indexed branch, not only the checked-out one'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand push" -s h -l help -d 'Print help'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand pull" -s C -d 'Run as if started in this directory' -r -F
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand pull" -s h -l help -d 'Print help'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand generate-assets" -l out -d 'Directory to write `completions/` into' -r -F
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand generate-assets" -s C -d 'Run as if started in this directory' -r -F
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand generate-assets" -s h -l help -d 'Print help'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand help; and not __fish_seen_subcommand_from search index status gc doctor hooks mcp trust export import push pull generate-assets help" -f -a "search" -d 'Search (the default; use it to search for a word that is also a command name)'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand help; and not __fish_seen_subcommand_from search index status gc doctor hooks mcp trust export import push pull generate-assets help" -f -a "index" -d 'Build or update the index of the checked-out branch'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand help; and not __fish_seen_subcommand_from search index status gc doctor hooks mcp trust export import push pull generate-assets help" -f -a "status" -d 'Show what is indexed'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand help; and not __fish_seen_subcommand_from search index status gc doctor hooks mcp trust export import push pull generate-assets help" -f -a "gc" -d 'Drop branches that no longer exist and content no branch uses'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand help; and not __fish_seen_subcommand_from search index status gc doctor hooks mcp trust export import push pull generate-assets help" -f -a "doctor" -d 'Check the index for damage, stale locks and interrupted runs; --repair fixes them'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand help; and not __fish_seen_subcommand_from search index status gc doctor hooks mcp trust export import push pull generate-assets help" -f -a "hooks" -d 'Install or remove the git hooks that keep the index fresh'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand help; and not __fish_seen_subcommand_from search index status gc doctor hooks mcp trust export import push pull generate-assets help" -f -a "mcp" -d 'Serve the Model Context Protocol over stdio, for coding agents'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand help; and not __fish_seen_subcommand_from search index status gc doctor hooks mcp trust export import push pull generate-assets help" -f -a "trust" -d 'Let this repository\'s .codesearch.toml choose remote providers, URLs, API key variables and [llm] settings (recorded for its exact content; a change needs trusting again)'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand help; and not __fish_seen_subcommand_from search index status gc doctor hooks mcp trust export import push pull generate-assets help" -f -a "export" -d 'Write a snapshot of the index to FILE (a tar), e.g. built once by CI'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand help; and not __fish_seen_subcommand_from search index status gc doctor hooks mcp trust export import push pull generate-assets help" -f -a "import" -d 'Merge a snapshot written by `export` (from any clone) into this index'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand help; and not __fish_seen_subcommand_from search index status gc doctor hooks mcp trust export import push pull generate-assets help" -f -a "push" -d 'Upload the index of the checked-out branch to object storage (s3://, gs://, az://, file://), only what the remote lacks; REMOTE defaults to `git config codesearch.remote`'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand help; and not __fish_seen_subcommand_from search index status gc doctor hooks mcp trust export import push pull generate-assets help" -f -a "pull" -d 'Download and merge the branches pushed to REMOTE (default `git config codesearch.remote`), only what this clone lacks; searchable at once'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand help; and not __fish_seen_subcommand_from search index status gc doctor hooks mcp trust export import push pull generate-assets help" -f -a "generate-assets" -d 'Write the man page and shell completions (for packagers; the repository has them under completions/)'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand help; and not __fish_seen_subcommand_from search index status gc doctor hooks mcp trust export import push pull generate-assets help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand help; and __fish_seen_subcommand_from hooks" -f -a "install" -d 'Write post-checkout, post-merge and post-rewrite hooks (chaining existing ones)'
complete -c git-codesearch -n "__fish_git_codesearch_using_subcommand help; and __fish_seen_subcommand_from hooks" -f -a "uninstall" -d 'Remove our hooks and restore the ones they replaced'
