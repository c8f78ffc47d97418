(function(){
  var targets=Array.prototype.slice.call(document.querySelectorAll('details.target'));
  function all(open){targets.forEach(function(d){d.open=open;});}
  var e=document.getElementById('expand-all'),c=document.getElementById('collapse-all'),f=document.getElementById('filter');
  if(e){e.addEventListener('click',function(){all(true);});}
  if(c){c.addEventListener('click',function(){all(false);});}
  if(f){f.addEventListener('input',function(){
    var q=f.value.toLowerCase();
    targets.forEach(function(d){d.classList.toggle('hidden',q!==''&&d.getAttribute('data-target').toLowerCase().indexOf(q)<0);});
  });}
  document.documentElement.setAttribute('data-script','ready');
})();
