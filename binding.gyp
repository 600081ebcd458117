{
  # The kernel-proofs addon: the Node-API binding (native/binding), shared POSIX code, and one
  # backend per OS, chosen here by OS (no #ifdef chains in the sources; docs/design/kernel-proofs.md §5,
  # docs/design/style.md habit 1).
  "targets": [
    {
      "target_name": "grok_seat_proofs",
      "sources": [
        "native/binding/binding.cc",
        "native/binding/facts.cc",
        "native/binding/handle.cc",
        "native/posix/files.cc",
        "native/posix/socket.cc"
      ],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-Wall", "-Wextra"],
      "conditions": [
        ["OS=='linux'", {
          "sources": [
            "native/linux/handle.cc",
            "native/linux/info.cc",
            "native/linux/peer.cc",
            "native/linux/pidfd.cc",
            "native/linux/pinned.cc",
            "native/linux/procfs.cc",
            "native/linux/sockdiag.cc",
            "native/linux/socket.cc"
          ]
        }],
        ["OS=='mac'", {
          "sources": [
            "native/darwin/argv.cc",
            "native/darwin/handle.cc",
            "native/darwin/image.cc",
            "native/darwin/libproc.cc",
            "native/darwin/peer.cc",
            "native/darwin/socket.cc",
            "native/darwin/sockets.cc"
          ],
          # audit_token_to_pid/_euid/_pidversion live in libbsm (docs/design/kernel-proofs.md §1.3, §4).
          "libraries": ["-lbsm"],
          "xcode_settings": {
            "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
            "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
            "CLANG_CXX_LIBRARY": "libc++",
            # LOCAL_PEERTOKEN and p_idversion need macOS 11 (docs/design/kernel-proofs.md §1.1, §1.3).
            "MACOSX_DEPLOYMENT_TARGET": "11.0",
            "OTHER_CPLUSPLUSFLAGS": ["-Wall", "-Wextra"]
          }
        }]
      ]
    }
  ]
}
