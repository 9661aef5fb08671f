# Warnings and sanitizers for MergeAttn's own targets (never for consumers of the library).
function(mergeattn_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  if(MERGEATTN_ENABLE_SANITIZERS)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer
                                             -fno-sanitize-recover=undefined)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()
